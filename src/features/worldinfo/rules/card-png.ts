/**
 * The character card inside a PNG, read the way SillyTavern's `character-card-parser.js` reads it:
 * the `tEXt` chunks, `ccv3` (V3) before `chara` (V2), keyword compared without case, the text
 * base64 of the card's UTF-8 JSON. Every chunk's length and CRC are checked (Node's own
 * `zlib.crc32`) and the file must reach IEND, as SillyTavern's `png-chunks-extract` does; that
 * package (unchanged since 2016) allocates a chunk's declared length before checking it, so a
 * corrupt length could ask for 4 GiB, which is why it is not used here.
 */
import { crc32 } from 'node:zlib';
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
 * Every chunk up to IEND, each length checked against the file and each CRC (over type and data)
 * checked, as the PNG specification asks: a damaged or cut file is refused, not half read.
 */
function readChunks(bytes: Uint8Array): Array<{ type: string; data: Uint8Array }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: Array<{ type: string; data: Uint8Array }> = [];
  let offset = SIGNATURE.length;
  while (offset + 8 <= bytes.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (chunks.length === 0 && type !== 'IHDR')
      throw badPng('the PNG is damaged: it does not start with IHDR');
    if (offset + 12 + length > bytes.length) {
      throw badPng(`the PNG is truncated: its ${type} chunk at byte ${offset} runs past the end of the file`);
    }
    const crc = view.getUint32(offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== crc) {
      throw badPng(`the PNG is damaged: the CRC of its ${type} chunk at byte ${offset} does not match`);
    }
    if (type === 'IEND') return chunks;
    chunks.push({ type, data: bytes.subarray(offset + 8, offset + 8 + length) });
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
  const texts = readChunks(bytes)
    .filter((chunk) => chunk.type === 'tEXt')
    .map((chunk) => decodeText(chunk.data));
  for (const chunk of cardChunks) {
    const found = texts.find((text) => text.keyword.toLowerCase() === chunk);
    if (found) return { json: decodeCard(found.text, chunk), chunk };
  }
  throw badPng('the PNG carries no character card: it has neither a ccv3 nor a chara tEXt chunk');
}
