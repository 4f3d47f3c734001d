import type { Db } from './client.js';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that can run a query: the database itself or an open transaction. */
export type Executor = Db | Tx;

/** postgres.js returns rows as an array, PGlite as `{ rows }`; raw `execute` callers want rows. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
