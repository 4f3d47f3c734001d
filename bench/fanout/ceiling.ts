import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import type { Database } from '../../src/db/client.js';
import { appendEvents } from '../../src/journal/append.js';
import { autoApprovedCall, createRun, httpClient } from '../lifecycle/api.js';
import { pool, sleep } from '../lifecycle/measure.js';
import type { Backend } from './backend.js';
import { type PgbenchRate, pgbenchFloors } from './pgbench-floor.js';
import { acrossProcesses } from './processes.js';

export const WRITERS = 32;
/** Server processes the Postgres writers are spread over, as a deployment of several servers would. */
export const PROCESSES = Number(process.env.CEILING_PROCESSES ?? 4);
/** `CEILING_PGBENCH=1` adds pgbench's floors (Postgres only; needs pgbench on the PATH). */
const PGBENCH = process.env.CEILING_PGBENCH === '1';

/** Transactions a second, and the writers' processes' CPU time per transaction (Postgres only). */
export interface Rate {
  perSecond: number;
  cpuMicrosPerTx: number | null;
}

export interface Ceiling {
  appends: Rate;
  /** The same insert + NOTIFY in each transaction into a plain table. */
  floor: Rate;
  /** A one-row insert into a plain table, no NOTIFY: what Node itself does per transaction. */
  plain: Rate;
  /** That insert's transaction on postgres.js alone, no Drizzle nor our wrapper (Postgres only). */
  raw: Rate | null;
  /** The same transactions from pgbench, when asked for (`CEILING_PGBENCH=1`). */
  pgbench: PgbenchRate[];
  /** Of the writers' backends seen active, the share waiting on a lock (Postgres only). */
  lockWaitShare: number | null;
  /** Processes the writers (and the floor's) ran in: 1 on PGlite, whose database is one process's. */
  processes: number;
  callsPerSecond: number;
}

/** Runs `writers` loops of `task` for `seconds`; returns tasks done per second. */
async function flatOut(writers: number, seconds: number, task: (w: number) => Promise<unknown>) {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      while (performance.now() < until) {
        await task(w);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - t0) / 1000);
}

/**
 * Samples pg_stat_activity on a connection of its own while `work` runs: how many of the
 * server's active backends wait on a lock. Appenders share no row since positions come from
 * transaction ids, and notify outside their transactions (one NOTIFY per process per round trip,
 * src/journal/announce.ts); the floor below notifies in every transaction, as appends once did.
 */
async function lockWaits<T>(
  url: string | null,
  work: () => Promise<T>,
): Promise<{ result: T; share: number | null }> {
  if (!url) return { result: await work(), share: null };
  const probe = postgres(url, { max: 1, onnotice: () => {} });
  let active = 0;
  let waiting = 0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      const [row] = await probe<{ active: number; waiting: number }[]>`
        select count(*) filter (where state = 'active')::int as active,
               count(*) filter (where state = 'active' and wait_event_type = 'Lock')::int as waiting
        from pg_stat_activity
        where application_name = 'agent-tool-system' and datname = current_database()`;
      active += row!.active;
      waiting += row!.waiting;
      await sleep(20);
    }
  })();
  const result = await work();
  running = false;
  await sampler;
  await probe.end();
  return { result, share: active ? waiting / active : 0 };
}

/**
 * The journal's append ceiling: 32 writers on different runs appending one event a transaction,
 * against two floors measured the same way, the same insert and NOTIFY into a plain table (a
 * bigserial key, no reader horizon to honour) and a one-row insert alone; then 32 agents making
 * auto-approved calls through the API, a run each. On Postgres the writers are spread over
 * `PROCESSES` child processes that each open the database as a server does (announcer and bus
 * included), since one Node process's CPU, not the database, is what a single process measures;
 * their CPU time per transaction says how much of the machine each kind of transaction takes.
 */
export async function measureCeiling(backend: Backend, seconds: number): Promise<Ceiling> {
  const { database, url } = backend;
  const runIds = Array.from({ length: WRITERS }, () => randomUUID());
  const inProcess = (task: (w: number) => Promise<unknown>) => async (): Promise<Rate> => {
    await flatOut(WRITERS, 1, task);
    return { perSecond: await flatOut(WRITERS, seconds, task), cpuMicrosPerTx: null };
  };
  const append = (w: number) =>
    database.db.transaction((tx) =>
      appendEvents(tx, [{ type: 'checkpoint_created', runId: runIds[w], actor: 'bench', payload: { w } }]),
    );
  const appends = await lockWaits(
    url,
    url ? () => acrossProcesses(url, 'journal', runIds, PROCESSES, seconds) : inProcess(append),
  );

  await database.db.execute(
    sql`create table if not exists bench_append_floor (id bigserial primary key, run_id uuid, payload jsonb not null)`,
  );
  const floor = url
    ? await acrossProcesses(url, 'floor', runIds, PROCESSES, seconds)
    : await inProcess((w) => insertIntoPlainTable(database, runIds[w]!, w, true))();
  const plain = url
    ? await acrossProcesses(url, 'plain', runIds, PROCESSES, seconds)
    : await inProcess((w) => insertIntoPlainTable(database, runIds[w]!, w, false))();
  const raw = url ? await acrossProcesses(url, 'raw', runIds, PROCESSES, seconds) : null;
  const pgbench = url && PGBENCH ? await pgbenchFloors(url, WRITERS, seconds) : [];
  await database.db.execute(sql`drop table bench_append_floor`);

  const agent = httpClient(backend.endpoint, backend.agentSecret);
  const runs = new Map<number, Promise<string>>();
  const runOf = (w: number) => runs.get(w) ?? runs.set(w, createRun(agent)).get(w)!;
  const calls = await pool(WRITERS * 20, WRITERS, async (_, w) =>
    autoApprovedCall(agent, await runOf(w), 'bench.noop'),
  );
  return {
    appends: appends.result,
    floor,
    plain,
    raw,
    pgbench,
    lockWaitShare: appends.share,
    processes: url ? PROCESSES : 1,
    callsPerSecond: calls.rate,
  };
}

function insertIntoPlainTable(database: Database, runId: string, w: number, notify: boolean) {
  return database.db.transaction(async (tx) => {
    await tx.execute(
      sql`insert into bench_append_floor (run_id, payload) values (${runId}, ${JSON.stringify({ w })}::jsonb)`,
    );
    if (notify) await tx.execute(sql`select pg_notify('bench_floor', '1')`);
  });
}
