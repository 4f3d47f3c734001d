import { createHash } from 'node:crypto';

/** The largest file a workspace holds; tool arguments are smaller still (256 KiB of JSON). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

export const sha256Hex = (content: Buffer): string => createHash('sha256').update(content).digest('hex');

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of a file, or null when its bytes are not UTF-8 (an imported binary file). */
export function decodeText(content: Buffer): string | null {
  try {
    return strictUtf8.decode(content);
  } catch {
    return null;
  }
}

export const encodeText = (text: string): Buffer => Buffer.from(text, 'utf8');
