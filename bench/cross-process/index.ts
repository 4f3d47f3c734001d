import { fork } from 'node:child_process';
import { type Client, createClient } from 'graphql-ws';
import postgres from 'postgres';
import WebSocket from 'ws';
import { createLogger } from '../../src/app/logger.js';
import { createServices } from '../../src/app/services.js';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { approveCall, createRun, httpClient, requestCall } from '../lifecycle/api.js';
import { adminPrincipal, noTool } from '../lifecycle/bench-tools.js';
import { fmt, percentile, sleep } from '../lifecycle/measure.js';
import { ASK_TOOL } from './server.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** Makes a database for this run next to the one `DATABASE_URL` names, with tokens and an ASK rule. */
async function prepare(baseUrl: string) {
  const name = `ats_bench_xproc_${process.pid}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name}`);
  await admin.unsafe(`create database ${name}`);
  const parsed = new URL(baseUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  const database = await openDatabase({ driver: 'postgres', url });
  await runMigrations(database, url);
  const services = createServices(database, createLogger('silent'), { extraTools: [noTool(ASK_TOOL)] });
  const adminToken = await services.tokens.create({ name: 'bench', role: 'ADMIN' });
  const agent = await services.tokens.create({ name: 'bench-agent', role: 'AGENT', userId: 'bench-user' });
  const approver = await services.tokens.create({
    name: 'bench-approver',
    role: 'APPROVER',
    users: ['bench-user'],
  });
  await services.policy.set(
    { layer: 'PLATFORM', toolPattern: ASK_TOOL, effect: 'ASK' },
    adminPrincipal(adminToken.token.id),
  );
  await database.close();
  const drop = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
  return { url, agentSecret: agent.secret, approverSecret: approver.secret, drop };
}

/** Starts a server process on `url`; resolves with its endpoint and its stop. */
async function serverProcess(url: string) {
  const child = fork(new URL('./server.ts', import.meta.url), { execArgv: ['--import', 'tsx'] });
  child.send(url);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  const stopped = new Promise((resolve) => child.once('exit', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}/graphql`,
    stop: async () => {
      child.send('stop');
      await stopped;
    },
  };
}

/** A console's view of one run: when each call's approval arrives over graphql-ws. */
function approvalsOf(endpoint: string, secret: string, runId: string) {
  const arrivals = new Map<string, number>();
  const client: Client = createClient({
    url: endpoint.replace('http', 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${secret}` },
    retryAttempts: 0,
  });
  client.subscribe(
    {
      query: 'subscription ($runId: ID!) { journalEvents(runId: $runId, afterSeq: "0") { type callId } }',
      variables: { runId },
    },
    {
      next: (value) => {
        const event = (value.data as { journalEvents: { type: string; callId: string | null } })
          .journalEvents;
        if (event.type === 'TOOL_CALL_APPROVED' && event.callId)
          arrivals.set(event.callId, performance.now());
      },
      error: (error) => process.stderr.write(`journalEvents ended: ${JSON.stringify(error)}\n`),
      complete: () => {},
    },
  );
  return { arrivals, close: () => client.dispose() };
}

/** The database's own wake between two connections: NOTIFY on one, arrival on a LISTEN of the other. */
async function listenNotifyRoundTrips(url: string, n: number, gapMs: number) {
  const listener = postgres(url, { max: 1, onnotice: () => {} });
  const notifier = postgres(url, { max: 1, onnotice: () => {} });
  const sent = new Map<string, number>();
  const lags: number[] = [];
  const sub = await listener.listen('bench_xproc', (payload) => {
    const t0 = sent.get(payload);
    if (t0 !== undefined) lags.push(performance.now() - t0);
  });
  for (let i = 0; i < n; i++) {
    sent.set(String(i), performance.now());
    await notifier`select pg_notify('bench_xproc', ${String(i)})`;
    await sleep(gapMs);
  }
  await sleep(200);
  await sub.unlisten();
  await Promise.all([listener.end(), notifier.end()]);
  return lags;
}

const summary = (lags: number[], n: number) => {
  const sorted = [...lags].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(sorted, 50))} ms, p99 ${fmt(percentile(sorted, 99))} ms, ${n - lags.length} missing`;
};

/**
 * `npm run bench -- cross-process`: an approval decided through GraphQL on server process A, and
 * the time until a journalEvents subscriber on server process B sees it, next to the same
 * subscriber on A and a raw LISTEN/NOTIFY round trip. Needs DATABASE_URL (Postgres).
 */
export async function main() {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error('cross-process needs DATABASE_URL: PGlite is one process’s database');
  const decisions = env('DECISIONS', 200);
  const gapMs = 1000 / env('DECISIONS_PER_SECOND', 10);
  const setup = await prepare(baseUrl);
  const [a, b] = await Promise.all([serverProcess(setup.url), serverProcess(setup.url)]);
  const agent = httpClient(a.endpoint, setup.agentSecret);
  const approver = httpClient(a.endpoint, setup.approverSecret);
  const runId = await createRun(agent);
  const onA = approvalsOf(a.endpoint, setup.approverSecret, runId);
  const onB = approvalsOf(b.endpoint, setup.approverSecret, runId);
  await sleep(500);
  const sentAt = new Map<string, number>();
  for (let i = 0; i < decisions; i++) {
    const call = await requestCall(agent, runId, ASK_TOOL);
    sentAt.set(call.id, performance.now());
    await approveCall(approver, call.id);
    await sleep(gapMs);
  }
  await sleep(1000);
  const lags = (arrivals: Map<string, number>) =>
    [...sentAt].flatMap(([id, t0]) => (arrivals.has(id) ? [arrivals.get(id)! - t0] : []));
  const raw = await listenNotifyRoundTrips(setup.url, decisions, gapMs);
  process.stdout.write(
    `cross-process, ${decisions} approvals at ${fmt(1000 / gapMs)}/s, decided on process A (target p99 <= 50 ms on B)\n` +
      `  subscriber on process B: ${summary(lags(onB.arrivals), decisions)}\n` +
      `  subscriber on process A (baseline): ${summary(lags(onA.arrivals), decisions)}\n` +
      `  raw LISTEN/NOTIFY between two connections (floor): ${summary(raw, decisions)}\n`,
  );
  await Promise.all([onA.close(), onB.close()]);
  await Promise.all([a.stop(), b.stop()]);
  await setup.drop();
}
