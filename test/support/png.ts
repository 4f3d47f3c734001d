import { crc32 } from 'node:zlib';

/** PNG files built byte by byte for tests: real chunk layout and CRCs, so a reader must check them. */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A tEXt chunk holding `json` the way SillyTavern writes a card: base64 of its UTF-8. */
export const cardChunk = (keyword: string, json: string) =>
  chunk(
    'tEXt',
    Buffer.concat([
      Buffer.from(`${keyword}\0`, 'latin1'),
      Buffer.from(Buffer.from(json, 'utf8').toString('base64'), 'latin1'),
    ]),
  );

/** A 1×1 PNG with the given chunks between its image data and IEND. */
export function png(...extra: Buffer[]): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  const idat = Buffer.from('789c626000000000ffff03000006000557bfabd4', 'hex');
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    ...extra,
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The base64 JSON of every tEXt chunk of a real PNG, by keyword, read without the code under test. */
export function textChunks(file: Buffer): Record<string, string> {
  const found: Record<string, string> = {};
  for (let offset = 8; offset < file.length; ) {
    const length = file.readUInt32BE(offset);
    const type = file.toString('latin1', offset + 4, offset + 8);
    if (type === 'tEXt') {
      const data = file.subarray(offset + 8, offset + 8 + length);
      const nul = data.indexOf(0);
      found[data.toString('latin1', 0, nul)] = Buffer.from(
        data.toString('latin1', nul + 1),
        'base64',
      ).toString('utf8');
    }
    offset += 12 + length;
  }
  return found;
}
