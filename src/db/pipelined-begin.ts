import { AsyncLocalStorage } from 'node:async_hooks';
import type postgres from 'postgres';

/**
 * A transaction client as Drizzle uses one: its queries (`unsafe`) and nested transactions
 * (`savepoint`). Every query is prepared (see client.ts).
 */
export interface PipelinedTransaction {
  unsafe: postgres.Sql['unsafe'];
  savepoint<T>(work: (tx: PipelinedTransaction) => Promise<T>): Promise<T>;
}

/** The statements a transaction's work left for its COMMIT to wait on (see `awaitWithCommit`). */
const leftForCommit = new AsyncLocalStorage<Promise<unknown>[]>();

/**
 * Called by a transaction's own work (not a savepoint's) with a statement already handed to its
 * connection (a Drizzle query is, once its `then` is called): the work's next statement, or its
 * COMMIT, goes out behind it without waiting for its answer, and the transaction's outcome waits
 * on it (its failure aborts the transaction and is thrown). Returns false anywhere else (PGlite, a
 * savepoint, no transaction): the caller awaits it.
 */
export function awaitWithCommit(statement: Promise<unknown>): boolean {
  const left = leftForCommit.getStore();
  if (!left) return false;
  statement.catch(() => {});
  left.push(statement);
  return true;
}

/**
 * postgres.js's `begin` waits for BEGIN's answer before it sends the transaction's first
 * statement, and `savepoint` for SAVEPOINT's: a round trip each that carries nothing (issue 30:
 * a call's two transactions made ten round trips, two of them BEGIN). Here BEGIN and SAVEPOINT
 * go out with the statement after them, on a connection reserved for the transaction; a SAVEPOINT
 * with no statement after it does not go out at all.
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
    // The savepoints open now. A SAVEPOINT goes out only ahead of the first statement made while it
    // is open: one in which nothing runs (a tool that wrote nothing, issue 30) costs no statement
    // and no round trip, and when it throws there is nothing to roll back to.
    const open: { name: string; opened?: Promise<unknown> }[] = [];
    // Each query is handed over as it is made, as BEGIN is: the connection runs them in the order
    // they were made, whichever the caller awaits first.
    // None is made once the COMMIT is: it would run outside the transaction.
    let committing = false;
    const unsafe = ((query: string, parameters?: never[], options?: postgres.UnsafeQueryOptions) => {
      if (committing) throw new Error('a statement made after its transaction began to commit');
      for (const savepoint of open) savepoint.opened ??= sent(reserved.unsafe(`savepoint ${savepoint.name}`));
      return reserved.unsafe(query, parameters, { ...options, prepare: true }).execute();
    }) as postgres.Sql['unsafe'];
    const tx: PipelinedTransaction = {
      unsafe,
      async savepoint(nested) {
        const savepoint: (typeof open)[number] = { name: `s${savepoints++}` };
        open.push(savepoint);
        const closed = () => open.splice(open.indexOf(savepoint), 1);
        try {
          // A savepoint's statements are awaited by their callers: its rollback must cover them.
          const result = await leftForCommit.exit(() => nested(tx));
          closed();
          await savepoint.opened;
          return result;
        } catch (error) {
          closed();
          if (
            savepoint.opened &&
            (await savepoint.opened.then(
              () => true,
              () => false,
            ))
          )
            await reserved.unsafe(`rollback to savepoint ${savepoint.name}`);
          throw error;
        }
      },
    };
    const opened = sent(reserved.unsafe('begin'));
    const left: Promise<unknown>[] = [];
    let result: T;
    try {
      result = await leftForCommit.run(left, () => work(tx));
    } catch (error) {
      await Promise.allSettled([opened, ...left]);
      await reserved.unsafe('rollback').catch(() => {});
      // A statement left for the commit that failed aborted the transaction: the work's own error
      // is then only Postgres refusing what came after it.
      for (const statement of left) await statement;
      throw error;
    }
    committing = true;
    // Not after BEGIN's answer: a transaction whose work awaited nothing (its statements were left
    // for the commit) is BEGIN, its statements and COMMIT in one write and one round trip (the
    // connection sends what it was handed within a turn of the event loop together).
    const committed = await reserved.unsafe('commit');
    await opened;
    if (committed.command !== 'COMMIT') {
      // The statement that aborted it says why.
      for (const statement of left) await statement;
      throw new Error(
        `the transaction was rolled back (a statement in it failed unawaited): ${committed.command}`,
      );
    }
    await Promise.all(left);
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
