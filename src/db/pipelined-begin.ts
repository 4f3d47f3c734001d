import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type postgres from 'postgres';

/**
 * A transaction client as Drizzle uses one: its queries (`unsafe`) and nested transactions
 * (`savepoint`). Every query is prepared (see client.ts).
 */
export interface PipelinedTransaction {
  unsafe: postgres.Sql['unsafe'];
  savepoint<T>(work: (tx: PipelinedTransaction) => Promise<T>): Promise<T>;
}

/** What a transaction's work left for its COMMIT to wait on (see `awaitWithCommit`). */
interface Left {
  statements: Promise<unknown>[];
  /** How many queries the transaction has handed to its connection. */
  made: number;
  /** A statement left whose query was not handed over when it was left: the COMMIT waits a turn. */
  late: boolean;
}
const leftForCommit = new AsyncLocalStorage<Left>();

/**
 * Called by a transaction's own work (not a savepoint's) with its last statement, which `make`
 * makes: the COMMIT then goes out behind it without waiting for its answer, in the same write to
 * the connection (one round trip and one write instead of two), and the transaction's outcome
 * waits on it (its failure aborts the transaction and is thrown). Returns the statement anywhere
 * else (PGlite, a savepoint, no transaction) for the caller to await, and undefined when left.
 */
export function awaitWithCommit(make: () => Promise<unknown>): Promise<unknown> | undefined {
  const left = leftForCommit.getStore();
  if (!left) return make();
  const before = left.made;
  const statement = make();
  statement.catch(() => {});
  left.statements.push(statement);
  // Drizzle hands a query to the driver as it is made; should it not have, the commit waits a
  // turn of the event loop, past the microtasks that hand it over, so that it goes out first.
  if (left.made === before) left.late = true;
  return undefined;
}

/**
 * postgres.js's `begin` waits for BEGIN's answer before it sends the transaction's first
 * statement, and `savepoint` for SAVEPOINT's: a round trip each that carries nothing (issue 30:
 * a call's two transactions made ten round trips, two of them BEGIN). Here BEGIN and SAVEPOINT
 * go out with the statement after them, on a connection reserved for the transaction.
 *
 * Order: a postgres.js query is handed to its connection one microtask after it starts (when it is
 * first awaited, or `execute`d), and a connection runs its queries in the order it was handed
 * them. Here every query starts as it is made, BEGIN and SAVEPOINT included, so they run in the
 * order they were made: BEGIN first. A BEGIN that fails means the connection failed, and so does
 * every statement after it.
 *
 * Nothing is committed that the work did not see succeed: an error thrown by the work rolls back;
 * a statement that failed unawaited aborts the transaction, Postgres then answers COMMIT with
 * ROLLBACK, and that is thrown as an error (postgres.js's `begin` throws the statement's error).
 */
export async function pipelinedBegin<T>(
  sql: postgres.Sql,
  work: (tx: PipelinedTransaction) => Promise<T>,
): Promise<T> {
  const reserved = await sql.reserve();
  try {
    let savepoints = 0;
    // Each query is handed over as it is made, as BEGIN is: the connection runs them in the order
    // they were made, whichever the caller awaits first.
    // None is made once the COMMIT is: it would run outside the transaction.
    let committing = false;
    const left: Left = { statements: [], made: 0, late: false };
    const unsafe = ((query: string, parameters?: never[], options?: postgres.UnsafeQueryOptions) => {
      if (committing) throw new Error('a statement made after its transaction began to commit');
      left.made += 1;
      return reserved.unsafe(query, parameters, { ...options, prepare: true }).execute();
    }) as postgres.Sql['unsafe'];
    const tx: PipelinedTransaction = {
      unsafe,
      async savepoint(nested) {
        const name = `s${savepoints++}`;
        const opened = sent(reserved.unsafe(`savepoint ${name}`));
        try {
          // A savepoint's statements are awaited by their callers: its rollback must cover them.
          const result = await leftForCommit.exit(() => nested(tx));
          await opened;
          return result;
        } catch (error) {
          if (
            await opened.then(
              () => true,
              () => false,
            )
          )
            await reserved.unsafe(`rollback to savepoint ${name}`);
          throw error;
        }
      },
    };
    const opened = sent(reserved.unsafe('begin'));
    let result: T;
    try {
      result = await leftForCommit.run(left, () => work(tx));
      await opened;
      if (left.late) await nextTurn();
    } catch (error) {
      await Promise.allSettled(left.statements);
      await reserved.unsafe('rollback').catch(() => {});
      throw error;
    }
    committing = true;
    const committed = await reserved.unsafe('commit');
    if (committed.command !== 'COMMIT') {
      // The statement that aborted it says why.
      for (const statement of left.statements) await statement;
      throw new Error(
        `the transaction was rolled back (a statement in it failed unawaited): ${committed.command}`,
      );
    }
    await Promise.all(left.statements);
    return result;
  } finally {
    reserved.release();
  }
}

/** Hands the query to its connection now; its outcome is awaited later. */
function sent<Q extends Promise<unknown>>(query: Q): Q {
  query.catch(() => {});
  return query;
}
