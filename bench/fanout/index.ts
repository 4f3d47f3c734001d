import { cpus } from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/tx.js';
import { fmt, settle } from '../lifecycle/measure.js';
import { type Backend, openBackend } from './backend.js';
import { type Ceiling, measureCeiling, type Rate, WRITERS } from './ceiling.js';
import { Fleet, type PhaseReport } from './fleet.js';
import { writeAtRate, writeFlatOut, writeHistory } from './live.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

interface Figures {
  label: string;
  rssPerSubscriptionKiB: number;
  slow: PhaseReport & { events: number };
  fast: PhaseReport & { events: number; writeRate: number; deliveriesPerSecond: number };
  replayPerSecond: number;
  /** Null when skipped (`CEILING_SECONDS=0`). */
  ceiling: Ceiling | null;
}

const lost = (report: PhaseReport, events: number, subscribers: number) =>
  events * subscribers - report.deliveries;

async function measure(backend: Backend, subscribers: number): Promise<Figures> {
  const ws = backend.endpoint.replace('http', 'ws');
  const { database } = backend;
  const [version] = rowsOf<{ v: string }>(await database.db.execute(sql`select version() as v`));
  process.stdout.write(`\n== ${backend.label} (${version!.v.split(' on ')[0]})\n`);

  const replayN = env('REPLAY_N', 100_000);
  const replayPerSecond = replayN > 0 ? await measureReplay(backend, replayN) : Number.NaN;

  const before = (await settle()).rss;
  const fleet = await Fleet.open(ws, backend.adminSecret, subscribers, env('FANOUT_PROCESSES', 2), 120_000);
  const rssPerSubscriptionKiB = ((await settle()).rss - before) / subscribers / 1024;
  process.stdout.write(
    `${subscribers} idle subscriptions: server RSS ${fmt(rssPerSubscriptionKiB)} KiB each\n`,
  );

  const slowEvents = env('SLOW_EVENTS', 100);
  // The server's CPU per event (this process: server, bus and writer; PGlite's queries too) and its
  // longest GC pause, which the lag's tail may be made of.
  const gc = watchGc();
  const cpu0 = process.cpuUsage();
  await writeAtRate(database, 'slow', slowEvents, 10);
  const slow = await fleet.settle('slow', slowEvents);
  const cpu = process.cpuUsage(cpu0);
  const gcTime = gc.stop();
  process.stdout.write(
    `10 events/s, ${slowEvents} events: lag p50 ${fmt(slow.p50)} ms, p99 ${fmt(slow.p99)} ms, max ${fmt(slow.max)} ms, lost ${lost(slow, slowEvents, subscribers)}; server CPU ${fmt((cpu.user + cpu.system) / 1000 / slowEvents)} ms an event, GC ${fmt(gcTime.total / slowEvents)} ms an event, longest pause ${fmt(gcTime.longest)} ms\n`,
  );

  const fastEvents = env('FAST_EVENTS', 200);
  const writers = env('FAST_WRITERS', 4);
  // How long the server's event loop was held at a time while it delivered: every database reply of
  // the writers (same process) waits that long.
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const written = await writeFlatOut(database, 'fast', fastEvents, writers);
  loop.disable();
  const fastReport = await fleet.settle('fast', fastEvents);
  const deliveriesPerSecond = fastReport.deliveries / ((fastReport.last - written.startedAt) / 1000);
  process.stdout.write(
    `flat out, ${writers} writers, ${fastEvents} events: written at ${fmt(written.perSecond)} events/s, ${fmt(deliveriesPerSecond)} deliveries/s, lag p50 ${fmt(fastReport.p50)} ms, p99 ${fmt(fastReport.p99)} ms, lost ${lost(fastReport, fastEvents, subscribers)}; while writing, the event loop was held p50 ${fmt(loop.percentile(50) / 1e6)} ms, p99 ${fmt(loop.percentile(99) / 1e6)} ms, max ${fmt(loop.max / 1e6)} ms\n`,
  );
  fleet.close();

  const ceiling = env('CEILING_SECONDS', 5) > 0 ? await reportCeiling(backend) : null;
  return {
    label: backend.label,
    rssPerSubscriptionKiB,
    slow: { ...slow, events: slowEvents },
    fast: { ...fastReport, events: fastEvents, writeRate: written.perSecond, deliveriesPerSecond },
    replayPerSecond,
    ceiling,
  };
}

/** A subscriber resuming `events` events back, after they were appended: events/s to the last. */
async function measureReplay(backend: Backend, events: number): Promise<number> {
  const { database } = backend;
  const [start] = rowsOf<{ seq: string | null }>(
    await database.db.execute(sql`select max(seq)::text as seq from journal_events`),
  );
  await writeHistory(database, events);
  const ws = backend.endpoint.replace('http', 'ws');
  const replayer = await Fleet.open(ws, backend.adminSecret, 0, 1, 30_000);
  const replay = await replayer.replay(BigInt(start?.seq ?? 0), events, 600_000);
  replayer.close();
  const perSecond = events / replay.seconds;
  process.stdout.write(
    `replay: a subscriber resuming ${events} events back got them in ${fmt(replay.seconds)} s: ${fmt(perSecond)} events/s\n`,
  );
  return perSecond;
}

/** Garbage collection from now until `stop()`: its longest pause and its total, in ms. */
function watchGc() {
  let longest = 0;
  let total = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longest = Math.max(longest, entry.duration);
      total += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      observer.disconnect();
      return { longest, total };
    },
  };
}

async function reportCeiling(backend: Backend): Promise<Ceiling> {
  const ceiling = await measureCeiling(backend, env('CEILING_SECONDS', 5));
  const rate = (r: Rate) =>
    `${fmt(r.perSecond)}/s` +
    (r.cpuMicrosPerTx === null ? '' : ` (Node CPU ${fmt(r.cpuMicrosPerTx)} µs each)`);
  process.stdout.write(
    `append ceiling, ${WRITERS} writers on different runs in ${ceiling.processes} process(es): ${rate(ceiling.appends)} appends` +
      (ceiling.lockWaitShare === null
        ? ''
        : `; ${fmt(ceiling.lockWaitShare * 100)}% of the writers' active backends waited on a lock`) +
      `\n  floor, the same insert + NOTIFY into a plain table from the same processes: ${rate(ceiling.floor)}` +
      `\n  floor, one-row insert, no NOTIFY, same processes: ${rate(ceiling.plain)}` +
      (ceiling.raw ? `\n  the same on postgres.js alone (begin, insert, commit): ${rate(ceiling.raw)}` : '') +
      ceiling.pgbench
        .map((p) => `\n  pgbench, ${WRITERS} clients, ${p.label}: ${fmt(p.perSecond)}/s`)
        .join('') +
      `\nauto-approved calls, ${WRITERS} agents with a run each: ${fmt(ceiling.callsPerSecond)} calls/s\n`,
  );
  return ceiling;
}

function printTargets(all: Figures[], subscribers: number) {
  const row = (name: string, target: string, value: (f: Figures) => string) =>
    process.stdout.write(
      `${name.padEnd(44)} ${target.padEnd(14)} ${all.map((f) => value(f).padStart(12)).join(' ')}\n`,
    );
  process.stdout.write(
    `\n${'figure'.padEnd(44)} ${'target'.padEnd(14)} ${all.map((f) => f.label.padStart(12)).join(' ')}\n`,
  );
  row('deliveries/s, flat out', '>= 20,000', (f) => fmt(f.fast.deliveriesPerSecond));
  row('lag p50 at 10 events/s (ms)', '', (f) => fmt(f.slow.p50));
  row('lag p99 at 10 events/s (ms)', '<= 50', (f) => fmt(f.slow.p99));
  row('lag p99 flat out (ms)', '', (f) => fmt(f.fast.p99));
  row('events lost', '0', (f) =>
    String(lost(f.slow, f.slow.events, subscribers) + lost(f.fast, f.fast.events, subscribers)),
  );
  row('RSS per idle subscription (KiB)', '<= 30', (f) => fmt(f.rssPerSubscriptionKiB));
  row('replay, 100,000 events back (events/s)', '>= 20,000', (f) => fmt(f.replayPerSecond));
  row(`appends/s, ${WRITERS} writers`, '>= 5,000', (f) => fmt(f.ceiling?.appends.perSecond ?? Number.NaN));
  row('same + NOTIFY into a plain table (/s)', '', (f) => fmt(f.ceiling?.floor.perSecond ?? Number.NaN));
  row('one-row insert, no NOTIFY (/s)', '', (f) => fmt(f.ceiling?.plain.perSecond ?? Number.NaN));
  row(`calls/s, ${WRITERS} agents`, '', (f) => fmt(f.ceiling?.callsPerSecond ?? Number.NaN));
}

/**
 * `npm run bench -- fanout [subscribers]`: journal fan-out to graphql-ws subscribers, replay, and
 * the append ceiling, on PGlite and (when DATABASE_URL is set) on Postgres, in one run.
 * `FANOUT_ONLY=ceiling` measures the append ceiling alone.
 */
export async function main(args: string[]): Promise<void> {
  const subscribers = Number(args[0] ?? 1000);
  process.stdout.write(
    `fan-out benchmark, ${subscribers} subscribers in a child process, ${cpus().length} cores, ${new Date().toISOString()}\n` +
      'subscribers, server and writers share this machine (and its other load); figures from one run are noisy\n',
  );
  const drivers: Array<'pglite' | 'postgres'> = [
    'pglite',
    ...(process.env.DATABASE_URL ? (['postgres'] as const) : []),
  ];
  const all: Figures[] = [];
  for (const driver of drivers) {
    const backend = await openBackend(driver, process.env.DATABASE_URL);
    try {
      if (process.env.FANOUT_ONLY === 'ceiling') {
        process.stdout.write(`\n== ${backend.label}\n`);
        await reportCeiling(backend);
      } else all.push(await measure(backend, subscribers));
    } finally {
      await backend.close();
    }
  }
  if (all.length > 0) printTargets(all, subscribers);
}
