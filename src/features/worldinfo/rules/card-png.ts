/**
 * The character card inside a PNG, read the way SillyTavern's `character-card-parser.js` reads it:
 * the `tEXt` chunks, `ccv3` (V3) before `chara` (V2), keyword compared without case, the text
 * base64 of the card's UTF-8 JSON. Chunks are read with `png-chunks-extract` (the package
 * SillyTavern uses), which checks every chunk's CRC and that the file reaches IEND.
 */
import extractChunks from 'png-chunks-extract';
import { type CardChunk, cardChunks } from './card.js';
import { WorldInfoError } from './entries.js';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export interface PngCard {
  /** The card's JSON text exactly as embedded (decoded from base64 and UTF-8). */
  json: string;
  chunk: CardChunk;
}

export const isPng = (bytes: Uint8Array): boolean =>
  bytes.length >= SIGNATURE.length && SIGNATURE.every((byte, i) => bytes[i] === byte);

const badPng = (message: string) => new WorldInfoError('INVALID_PNG', message);

/**
 * Every chunk's declared length must fit in the file before the package reads it: it allocates
 * the declared length first, and a corrupt length would ask for up to 4 GiB.
 */
function checkChunkBounds(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = SIGNATURE.length;
  while (offset + 8 <= bytes.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (offset + 12 + length > bytes.length) {
      throw badPng(`the PNG is truncated: its ${type} chunk at byte ${offset} runs past the end of the file`);
    }
    if (type === 'IEND') return;
    offset += 12 + length;
  }
  throw badPng('the PNG is truncated: it ends before its IEND chunk');
}

function decodeText(data: Uint8Array): { keyword: string; text: string } {
  const nul = data.indexOf(0);
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // tEXt is Latin-1; the card's text is base64, which is ASCII.
  if (nul < 0) return { keyword: bytes.toString('latin1'), text: '' };
  return {
    keyword: bytes.subarray(0, nul).toString('latin1'),
    text: bytes.subarray(nul + 1).toString('latin1'),
  };
}

function decodeCard(text: string, chunk: CardChunk): string {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw badPng(`the PNG's ${chunk} chunk is not base64`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(compact, 'base64'));
  } catch {
    throw badPng(`the PNG's ${chunk} chunk does not decode to UTF-8 text`);
  }
}

export function readPngCard(bytes: Uint8Array): PngCard {
  if (!isPng(bytes)) throw badPng('this is not a PNG file (its signature is wrong)');
  checkChunkBounds(bytes);
  let chunks: Array<{ name: string; data: Uint8Array }>;
  try {
    chunks = extractChunks(bytes);
  } catch (error) {
    throw badPng(`the PNG is damaged: ${(error as Error).message}`);
  }
  const texts = chunks.filter((chunk) => chunk.name === 'tEXt').map((chunk) => decodeText(chunk.data));
  for (const chunk of cardChunks) {
    const found = texts.find((text) => text.keyword.toLowerCase() === chunk);
    if (found) return { json: decodeCard(found.text, chunk), chunk };
  }
  throw badPng('the PNG carries no character card: it has neither a ccv3 nor a chara tEXt chunk');
}
