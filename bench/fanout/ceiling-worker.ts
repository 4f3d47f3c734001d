import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { createLogger } from '../../src/app/logger.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { JournalAnnouncer } from '../../src/journal/announce.js';
import { appendEvents } from '../../src/journal/append.js';
import { JournalBus } from '../../src/journal/bus.js';

/**
 * One process of the append ceiling (forked by ceiling.ts): it opens the database as a server
 * does, with its announcer and bus, so its commits cost the NOTIFY and the wake-up reads a server
 * pays, then runs its writers flat out when told to and reports how many transactions they made
 * and the CPU time the process spent meanwhile (its writers' and its bus's).
 */
export type WorkerTask = 'journal' | 'floor' | 'plain' | 'raw';
export interface WorkerJob {
  url: string;
  task: WorkerTask;
  runIds: string[];
  seconds: number;
}
export type WorkerMessage = { ready: true } | { done: number; elapsedMs: number; cpuMs: number };

const send = (message: WorkerMessage) => process.send!(message);

function appendOne(database: Database, runId: string, w: number) {
  return database.db.transaction((tx) =>
    appendEvents(tx, [{ type: 'checkpoint_created', runId, actor: 'bench', payload: { w } }]),
  );
}

/**
 * The floors: the same one-row insert into a plain table and a NOTIFY in its transaction, and the
 * insert alone (what these processes' Node does for a one-statement transaction).
 */
function insertIntoPlainTable(database: Database, runId: string, w: number, notify: boolean) {
  return database.db.transaction(async (tx) => {
    await tx.execute(
      sql`insert into bench_append_floor (run_id, payload) values (${runId}, ${JSON.stringify({ w })}::jsonb)`,
    );
    if (notify) await tx.execute(sql`select pg_notify('bench_floor', '1')`);
  });
}

/**
 * The plain insert's transaction straight on postgres.js (BEGIN, insert, COMMIT), without Drizzle
 * or our transaction wrapper: what the driver itself costs per transaction.
 */
function rawInsert(client: postgres.Sql, runId: string, w: number) {
  return client.begin(
    (s) =>
      s`insert into bench_append_floor (run_id, payload) values (${runId}, ${JSON.stringify({ w })}::jsonb)`,
  );
}

async function loop(job: WorkerJob, database: Database, seconds: number, client: postgres.Sql | null) {
  const tasks = {
    raw: (_: Database, runId: string, w: number) => rawInsert(client!, runId, w),
    journal: appendOne,
    floor: (d: Database, runId: string, w: number) => insertIntoPlainTable(d, runId, w, true),
    plain: (d: Database, runId: string, w: number) => insertIntoPlainTable(d, runId, w, false),
  };
  const task = tasks[job.task];
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    job.runIds.map(async (runId, w) => {
      while (performance.now() < until) {
        await task(database, runId, w);
        done += 1;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { done, elapsedMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
}

process.once('message', async (job: WorkerJob) => {
  const logger = createLogger('silent');
  const database = await openDatabase({ driver: 'postgres', url: job.url, max: job.runIds.length + 2 });
  const announcer = new JournalAnnouncer(database, logger);
  const bus = new JournalBus(database, logger, { origin: announcer.origin });
  await bus.start();
  const client =
    job.task === 'raw' ? postgres(job.url, { max: job.runIds.length, onnotice: () => {} }) : null;
  await loop(job, database, 0.5, client);
  send({ ready: true });
  process.once('message', async () => {
    send(await loop(job, database, job.seconds, client));
    await client?.end();
    await bus.stop();
    announcer.stop();
    await database.close();
    process.disconnect();
  });
});
