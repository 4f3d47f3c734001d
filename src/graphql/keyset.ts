import { badInput } from '../core/errors.js';

/** Opaque cursors over a (timestamp, id) sort key, stable while rows are inserted. */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(at);
    if (Number.isNaN(date.getTime()) || typeof id !== 'string') throw new Error('bad cursor');
    return { at: date, id };
  } catch {
    throw badInput(`not a cursor from this API: ${cursor}`);
  }
}
