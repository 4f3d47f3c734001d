import { sql } from 'drizzle-orm';
import { createLogger } from '../../src/app/logger.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { JournalAnnouncer } from '../../src/journal/announce.js';
import { appendEvents } from '../../src/journal/append.js';
import { JournalBus } from '../../src/journal/bus.js';

/**
 * One process of the append ceiling (forked by ceiling.ts): it opens the database as a server
 * does, with its announcer and bus, so its commits cost the NOTIFY and the wake-up reads a server
 * pays, then runs its writers flat out when told to and reports how many transactions they made.
 */
export type WorkerTask = 'journal' | 'floor';
export interface WorkerJob {
  url: string;
  task: WorkerTask;
  runIds: string[];
  seconds: number;
}
export type WorkerMessage = { ready: true } | { done: number; elapsedMs: number };

const send = (message: WorkerMessage) => process.send!(message);

function appendOne(database: Database, runId: string, w: number) {
  return database.db.transaction((tx) =>
    appendEvents(tx, [{ type: 'checkpoint_created', runId, actor: 'bench', payload: { w } }]),
  );
}

/** The floor: the same one-row insert and NOTIFY into a plain table, nothing else. */
function insertIntoPlainTable(database: Database, runId: string, w: number) {
  return database.db.transaction(async (tx) => {
    await tx.execute(
      sql`insert into bench_append_floor (run_id, payload) values (${runId}, ${JSON.stringify({ w })}::jsonb)`,
    );
    await tx.execute(sql`select pg_notify('bench_floor', '1')`);
  });
}

async function loop(job: WorkerJob, database: Database, seconds: number) {
  const task = job.task === 'journal' ? appendOne : insertIntoPlainTable;
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    job.runIds.map(async (runId, w) => {
      while (performance.now() < until) {
        await task(database, runId, w);
        done += 1;
      }
    }),
  );
  return { done, elapsedMs: performance.now() - t0 };
}

process.once('message', async (job: WorkerJob) => {
  const logger = createLogger('silent');
  const database = await openDatabase({ driver: 'postgres', url: job.url, max: job.runIds.length + 2 });
  const announcer = new JournalAnnouncer(database, logger);
  const bus = new JournalBus(database, logger, { origin: announcer.origin });
  await bus.start();
  await loop(job, database, 0.5);
  send({ ready: true });
  process.once('message', async () => {
    send(await loop(job, database, job.seconds));
    await bus.stop();
    announcer.stop();
    await database.close();
    process.disconnect();
  });
});
