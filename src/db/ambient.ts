import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './client.js';
import type { Tx } from './tx.js';

/**
 * A tool whose effects are rows in this database runs inside its call's transaction, but the
 * services it uses were built with the database handle (a tool never sees a handle). Within
 * `inTransaction`, a handle made by `ambientDb` sends every query to that transaction instead:
 * the tool's reads see its own writes, its writes commit with the call, and on PGlite (one
 * connection, where a query outside an open transaction waits for it to end) nothing deadlocks.
 * A service's own `transaction` becomes a savepoint of the call's, through `savepoint`.
 */
const current = new AsyncLocalStorage<{
  tx: Tx;
  savepoint: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
}>();

export function inTransaction<T>(
  tx: Tx,
  savepoint: <R>(work: (tx: Tx) => Promise<R>) => Promise<R>,
  work: () => Promise<T>,
): Promise<T> {
  return current.run({ tx, savepoint }, work);
}

export function ambientDb(db: Db): Db {
  return new Proxy(db, {
    get(target, property) {
      const scope = current.getStore();
      if (scope && property === 'transaction') return scope.savepoint;
      const source = (scope?.tx ?? target) as unknown as Record<PropertyKey, unknown>;
      const value = source[property];
      return typeof value === 'function' ? value.bind(source) : value;
    },
  });
}
