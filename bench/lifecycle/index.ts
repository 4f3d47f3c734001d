import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createLogger } from '../../src/app/logger.js';
import { createAppServer } from '../../src/app/server.js';
import { createServices } from '../../src/app/services.js';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { rowsOf } from '../../src/db/tx.js';
import { httpClient } from './api.js';
import { adminPrincipal, noTool } from './bench-tools.js';
import { BenchClient } from './client.js';
import { oneTransactionCall, threeTransactionCall, twoTransactionApprovedCall } from './floor.js';
import { fmt, pool, report } from './measure.js';
import { runPeer } from './peer.js';
import { PgStats, printPerCall } from './pg-stats.js';
import { type Figures, printPerCallGrowth, printSideBySide, printTargets } from './report.js';
import { StageClock } from './stages.js';
import { measureSubscriptions } from './subscriptions.js';

const WORKERS = 8;
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export async function main(args: string[]): Promise<void> {
  const calls = Number(args[0] ?? 2000);
  const subscribers = Number(args[1] ?? 1000);
  const decisions = Number(args[2] ?? 50);
  const seqN = env('SEQ_N', 200);
  const concN = env('CONC_N', 400);
  const batchN = env('BATCH_N', 100);
  const growthN = env('GROWTH_N', 1000);
  const dir = mkdtempSync(join(tmpdir(), 'ats-bench-'));
  const url = process.env.DATABASE_URL;
  const database = url
    ? await openDatabase({ driver: 'postgres', url })
    : await openDatabase({ driver: 'pglite', dataDir: join(dir, 'pgdata') });
  await runMigrations(database, url);
  const services = createServices(database, createLogger('silent'), {
    extraTools: [noTool('bench.noop'), noTool('bench.ask')],
  });
  await services.start();
  const server = createAppServer(services);
  const address = await server.listen(0, '127.0.0.1');
  const stages = new StageClock(server.http, database);
  const endpoint = `http://127.0.0.1:${address.port}/graphql`;
  const admin = await services.tokens.create({ name: 'bench', role: 'ADMIN' });
  const agentToken = await services.tokens.create({
    name: 'bench-agent',
    role: 'AGENT',
    userId: 'bench-user',
  });
  const approverToken = await services.tokens.create({
    name: 'bench-approver',
    role: 'APPROVER',
    users: ['bench-user'],
  });
  const client = await BenchClient.open(endpoint, agentToken.secret, approverToken.secret);
  const principal = adminPrincipal(admin.token.id);
  await services.policy.set({ layer: 'PLATFORM', toolPattern: 'bench.noop', effect: 'ALLOW' }, principal);
  await services.policy.set({ layer: 'PLATFORM', toolPattern: 'bench.ask', effect: 'ASK' }, principal);
  const [version] = rowsOf<{ v: string }>(await database.db.execute(sql`select version() as v`));
  process.stdout.write(
    `lifecycle benchmark on ${database.driver} (${version!.v.split(' on ')[0]}), ${cpus().length} cores, ${new Date().toISOString()}\n` +
      `sizes: ${calls} calls on one run, ${seqN} sequential, ${concN} on ${WORKERS} workers with a run each, per-call batches of ${batchN} at the start of a run and after ${growthN} calls\n` +
      'the client is a child process (bench/lifecycle/client-process.ts: node:http on keep-alive sockets, bodies written whole, graphql-ws for each run’s journal); it shares the machine with the server and Postgres; figures from one run are noisy\n\n',
  );

  const sqlRun = async () => (await services.runs.create({}, principal)).id;

  // Warm-up, not measured: the server's code paths, its pool and the floor's statements.
  const warm = await client.runs(1);
  await client.auto(50, 1, warm);
  await client.approved(20, 1, warm);
  const warmSql = await sqlRun();
  for (let i = 0; i < 50; i += 1) await threeTransactionCall(database, warmSql);

  process.stdout.write('auto-approved no-op (requestToolCall answers COMPLETED)\n');
  const oneRunSql = await sqlRun();
  const sqlOneRun = report(
    'SQL only, 3 transactions a call, 8 workers, one run',
    await pool(calls, WORKERS, () => threeTransactionCall(database, oneRunSql)),
  );
  const apiOneRun = report(
    'GraphQL API, 8 workers, one run',
    await client.auto(calls, WORKERS, await client.runs(1, false)),
  );
  process.stdout.write(
    `API / SQL throughput ratio, one run: ${(apiOneRun.rate / sqlOneRun.rate).toFixed(2)}\n`,
  );
  const autoSeq = report('GraphQL API, sequential', await client.auto(seqN, 1, await client.runs(1)));
  const autoRuns = report(
    'GraphQL API, 8 workers, a run each',
    await client.auto(concN, WORKERS, await client.runs(WORKERS)),
  );
  const floorRun = await sqlRun();
  report(
    'SQL floor, 1 transaction a call, sequential',
    await pool(seqN, 1, () => oneTransactionCall(database, floorRun)),
  );
  const floorRuns = await Promise.all(Array.from({ length: WORKERS }, sqlRun));
  report(
    'SQL floor, 1 transaction a call, 8 workers, a run each',
    await pool(concN, WORKERS, (_, w) => oneTransactionCall(database, floorRuns[w]!)),
  );

  process.stdout.write(
    '\napproved round trip: requestToolCall (agent) → approveToolCall (approver token) → TOOL_CALL_COMPLETED on the agent’s journalEvents(runId) subscription\n',
  );
  const approvedSeq = report('GraphQL API, sequential', await client.approved(seqN, 1, await client.runs(1)));
  const approvedRuns = report(
    'GraphQL API, 8 workers, a run each',
    await client.approved(concN, WORKERS, await client.runs(WORKERS)),
  );
  const floorApprovedRun = await sqlRun();
  const floorApprovedSeq = report(
    'SQL floor, 2 transactions a call, sequential',
    await pool(seqN, 1, () => twoTransactionApprovedCall(database, floorApprovedRun)),
  );
  const floorApprovedRuns = report(
    'SQL floor, 2 transactions a call, 8 workers, a run each',
    await pool(concN, WORKERS, (_, w) => twoTransactionApprovedCall(database, floorRuns[w]!)),
  );

  process.stdout.write(
    '\nwhere the server spends a sequential request, p50 of each stage (a phase of its own, not in the figures above):\n',
  );
  const stagesRun = await client.runs(1);
  const stageN = Math.max(50, Math.floor(seqN / 2));
  await stages.measure(['auto-approved requestToolCall'], () => client.auto(stageN, 1, stagesRun));
  await stages.measure(['approved round trip: requestToolCall', 'approved round trip: approveToolCall'], () =>
    client.approved(stageN, 1, stagesRun),
  );

  // Per-call database work, early in one run and again after ~growthN calls of the same run.
  // Idle journal subscriptions cost the database something (token checks): only the measured run's stays open.
  await client.unfollow();
  const stats = await PgStats.open(url);
  let perCall: Figures['stats'] = null;
  if (stats) {
    process.stdout.write(
      `\nper call, pg_stat_database deltas over ${batchN} sequential calls of one run, rows read = tup_returned + tup_fetched:\n`,
    );
    const g = await client.runs(1);
    const autoBatch = () => client.auto(batchN, 1, g);
    const approvedBatch = () => client.approved(batchN, 1, g);
    const background = async () => {
      const idle = await stats.measureBackground();
      process.stdout.write(
        `background per second without calls, subtracted from the batches that follow: ${fmt(idle.commits)} commits, ${fmt(idle.rowsRead)} rows read, ${fmt(idle.rowsWritten)} rows written, WAL ${fmt(idle.walBytes ?? Number.NaN)} B cluster-wide / ${fmt(idle.databaseWalBytes ?? Number.NaN)} B this database\n`,
      );
    };
    await background();
    const autoEarly = await stats.around(batchN, autoBatch);
    printPerCall(`auto-approved, calls 1–${batchN}`, autoEarly);
    const approvedEarly = await stats.around(batchN, approvedBatch);
    printPerCall(`approved, calls ${batchN + 1}–${2 * batchN}`, approvedEarly);
    await client.auto(Math.max(0, growthN - 2 * batchN), WORKERS, g);
    const late = Math.max(growthN, 2 * batchN);
    await background();
    const autoLate = await stats.around(batchN, autoBatch);
    printPerCall(`auto-approved, calls ${late + 1}–${late + batchN}`, autoLate);
    const approvedLate = await stats.around(batchN, approvedBatch);
    printPerCall(`approved, calls ${late + batchN + 1}–${late + 2 * batchN}`, approvedLate);
    perCall = {
      auto: { early: autoEarly, late: autoLate },
      approved: { early: approvedEarly, late: approvedLate },
    };
    await stats.close();
  } else {
    process.stdout.write('\nper-call commits, rows read and WAL: n/a on PGlite (run with DATABASE_URL)\n');
  }

  let peer: Awaited<ReturnType<typeof runPeer>>;
  if (!url) peer = { unavailable: 'it needs Postgres (run with DATABASE_URL)' };
  else if (process.env.PEER === 'off') peer = { unavailable: 'PEER=off' };
  else {
    process.stdout.write(
      '\nLangGraph peer (../shared/peers/langgraph), same Postgres server, its own database:\n',
    );
    peer = await runPeer(url, { seq: env('PEER_SEQ_N', seqN), conc: env('PEER_CONC_N', concN) });
  }

  const figures: Figures = {
    autoSeq,
    autoRuns,
    approvedSeq,
    approvedRuns,
    floorApprovedSeq,
    floorApprovedRuns,
    stats: perCall,
  };
  printSideBySide(figures, peer);
  printPerCallGrowth(figures);
  printTargets(figures, peer);

  await client.unfollow();
  client.close();
  if (subscribers > 0) {
    await measureSubscriptions(
      {
        endpoint,
        adminSecret: admin.secret,
        agent: httpClient(endpoint, agentToken.secret),
        approver: httpClient(endpoint, approverToken.secret),
      },
      { subscribers, decisions },
    );
  }

  await server.close();
  await services.stop();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
