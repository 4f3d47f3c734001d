import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { createLogger } from '../../src/app/logger.js';
import { createAppServer } from '../../src/app/server.js';
import { createServices } from '../../src/app/services.js';
import type { BuiltInTool } from '../../src/calls/tool-contract.js';
import type { Principal } from '../../src/core/auth.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { runs, toolCalls } from '../../src/db/schema.js';
import { appendEvents } from '../../src/journal/append.js';

const noop: BuiltInTool = {
  spec: {
    name: 'bench.noop',
    title: 'No-op',
    description: 'Does nothing.',
    inputSchema: { type: 'object' },
    outputSchema: null,
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, cost: null },
    visibility: 'MODEL',
    permission: 'ALWAYS_ALLOW',
    budget: { maxCalls: null, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null },
  },
  run: async () => ({ content: [] }),
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 0);

async function pool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

function report(label: string, latencies: number[], seconds: number) {
  const rate = latencies.length / seconds;
  process.stdout.write(
    `${label.padEnd(34)} ${fmt(rate).padStart(7)} calls/s   p50 ${fmt(percentile(latencies, 50))} ms   p99 ${fmt(percentile(latencies, 99))} ms\n`,
  );
  return rate;
}

/** The same three transactions the runtime makes per call, as plain Drizzle statements. */
async function sqlOnlyCall(database: Database, runId: string) {
  const db = database.db;
  const callId = await db.transaction(async (tx) => {
    await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
    const [call] = await tx
      .insert(toolCalls)
      .values({
        runId,
        name: 'bench.noop',
        arguments: {},
        argumentsHash: 'x',
        status: 'REQUESTED',
        requestedBy: 'bench',
        countsAgainstBudget: true,
      })
      .returning({ id: toolCalls.id });
    await appendEvents(tx, [
      { type: 'tool_call_requested', runId, callId: call!.id, actor: 'bench', payload: {} },
    ]);
    return call!.id;
  });
  await db.transaction(async (tx) => {
    await tx
      .update(toolCalls)
      .set({ status: 'STARTED', leaseOwner: 'bench', startedAt: new Date() })
      .where(eq(toolCalls.id, callId));
    await appendEvents(tx, [{ type: 'tool_call_started', runId, callId, actor: 'bench', payload: {} }]);
  });
  await db.transaction(async (tx) => {
    await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
    await tx
      .update(toolCalls)
      .set({
        status: 'COMPLETED',
        result: { callId, content: [], structured: null, isError: false, resourceRefs: [], usage: null },
        finishedAt: new Date(),
      })
      .where(eq(toolCalls.id, callId));
    await appendEvents(tx, [{ type: 'tool_call_completed', runId, callId, actor: 'bench', payload: {} }]);
  });
}

export async function main(args: string[]): Promise<void> {
  const calls = Number(args[0] ?? 2000);
  const subscribers = Number(args[1] ?? 1000);
  const decisions = Number(args[2] ?? 50);
  const dir = mkdtempSync(join(tmpdir(), 'ats-bench-'));
  const url = process.env.DATABASE_URL;
  const database = url
    ? await openDatabase({ driver: 'postgres', url })
    : await openDatabase({ driver: 'pglite', dataDir: join(dir, 'pgdata') });
  await runMigrations(database, url);
  const services = createServices(database, createLogger('silent'), { extraTools: [noop] });
  await services.start();
  const server = createAppServer(services);
  const address = await server.listen(0, '127.0.0.1');
  const endpoint = `http://127.0.0.1:${address.port}/graphql`;
  const { secret } = await services.tokens.create({ name: 'bench', role: 'ADMIN' });
  const principal: Principal = {
    tokenId: '00000000-0000-4000-8000-00000000beef',
    name: 'bench',
    role: 'ADMIN',
    userId: null,
    users: [],
    profiles: [],
    planNodes: null,
    extensionId: null,
    legacyUnbound: false,
  };
  await services.policy.set({ layer: 'PLATFORM', toolPattern: 'bench.*', effect: 'ALLOW' }, principal);
  const gql = async (query: string) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as {
      data: Record<string, { id: string; status: string }>;
      errors?: unknown;
    };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  process.stdout.write(`lifecycle benchmark on ${database.driver}: ${calls} calls, concurrency 8\n`);

  const apiRun = (await gql('mutation { createRun(input: {}) { id } }')).createRun!.id;
  const sqlRun = (await services.runs.create({}, principal)).id;
  for (let i = 0; i < 50; i += 1) await sqlOnlyCall(database, sqlRun);

  let t0 = performance.now();
  const sqlLatencies = await pool(calls, 8, () => sqlOnlyCall(database, sqlRun));
  const sqlRate = report('SQL only (baseline)', sqlLatencies, (performance.now() - t0) / 1000);
  t0 = performance.now();
  const apiLatencies = await pool(calls, 8, async () => {
    const { requestToolCall } = await gql(
      `mutation { requestToolCall(input: { runId: "${apiRun}", name: "bench.noop" }) { id status } }`,
    );
    if (requestToolCall!.status !== 'COMPLETED') throw new Error(`call ended ${requestToolCall!.status}`);
  });
  const apiRate = report('GraphQL API, auto-approved no-op', apiLatencies, (performance.now() - t0) / 1000);
  process.stdout.write(`API / SQL throughput ratio: ${(apiRate / sqlRate).toFixed(2)}\n\n`);

  // RSS keeps shrinking for a while after a burst of work; wait until it holds still.
  const settle = async () => {
    let last = 0;
    for (let i = 0; i < 20; i += 1) {
      global.gc?.();
      await new Promise((r) => setTimeout(r, 500));
      const rss = process.memoryUsage().rss;
      if (last && Math.abs(rss - last) < 512 * 1024) break;
      last = rss;
    }
    return { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed };
  };
  const rssBefore = await settle();
  const child = fork(
    new URL('./subscribers.ts', import.meta.url).pathname,
    [endpoint.replace('http', 'ws'), secret, String(subscribers)],
    {
      execArgv: ['--import', 'tsx'],
    },
  );
  const delivered = new Map<string, number[]>();
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m: { type: string; callId?: string; times?: number[]; message?: string }) => {
      if (m.type === 'ready') resolve();
      if (m.type === 'delivered') delivered.set(m.callId!, m.times!);
      if (m.type === 'error') reject(new Error(m.message));
    });
  });
  const rssAfter = await settle();
  const perSub = (bytes: number) => fmt(bytes / subscribers / 1024);
  process.stdout.write(
    `${subscribers} idle graphql-ws subscriptions: server RSS ${perSub(rssAfter.rss - rssBefore.rss)} KiB each, JS heap ${perSub(rssAfter.heap - rssBefore.heap)} KiB each\n`,
  );

  await services.policy.set({ layer: 'PLATFORM', toolPattern: 'bench.noop', effect: 'ASK' }, principal);
  const decideRun = (await gql('mutation { createRun(input: {}) { id } }')).createRun!.id;
  const latencies: number[] = [];
  for (let i = 0; i < decisions; i += 1) {
    const { requestToolCall } = await gql(
      `mutation { requestToolCall(input: { runId: "${decideRun}", name: "bench.noop" }) { id status } }`,
    );
    const id = requestToolCall!.id;
    const sent = performance.timeOrigin + performance.now();
    await gql(`mutation { approveToolCall(id: "${id}") { id } }`);
    const until = Date.now() + 30_000;
    while (!delivered.has(id) && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    for (const t of delivered.get(id) ?? []) latencies.push(t - sent);
  }
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `decision -> event at ${subscribers} subscribers (${decisions} decisions, every delivery): p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms, max ${fmt(latencies.at(-1)!)} ms\n`,
  );

  child.kill();
  await server.close();
  await services.stop();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
