import { fork } from 'node:child_process';
import { approveCall, createRun, type Gql, requestCall } from './api.js';
import { fmt, percentile, settle } from './measure.js';

/** The server under measure and the clients that act on it. */
interface BenchServer {
  endpoint: string;
  adminSecret: string;
  agent: Gql;
  approver: Gql;
}

/** How many idle subscriptions to open, and how many approvals to time through them. */
interface SubscriptionLoad {
  subscribers: number;
  decisions: number;
}

/**
 * Opens `subscribers` idle graphql-ws journal subscriptions from a child process (so the server's
 * memory per subscription is measured alone), then times how long each of `decisions` approvals
 * takes to reach every one of them.
 */
export async function measureSubscriptions(
  { endpoint, adminSecret, agent, approver }: BenchServer,
  { subscribers, decisions }: SubscriptionLoad,
) {
  const rssBefore = await settle();
  const child = fork(
    new URL('./subscribers.ts', import.meta.url).pathname,
    [endpoint.replace('http', 'ws'), adminSecret, String(subscribers)],
    { execArgv: ['--import', 'tsx'] },
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
    `\n${subscribers} idle graphql-ws subscriptions: server RSS ${perSub(rssAfter.rss - rssBefore.rss)} KiB each, JS heap ${perSub(rssAfter.heap - rssBefore.heap)} KiB each\n`,
  );

  const runId = await createRun(agent);
  const latencies: number[] = [];
  for (let i = 0; i < decisions; i += 1) {
    const { id } = await requestCall(agent, runId, 'bench.ask');
    const sent = performance.timeOrigin + performance.now();
    await approveCall(approver, id);
    const until = Date.now() + 30_000;
    while (!delivered.has(id) && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    for (const t of delivered.get(id) ?? []) latencies.push(t - sent);
  }
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `decision → event at ${subscribers} subscribers (${decisions} decisions, every delivery): p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms, max ${fmt(latencies.at(-1)!)} ms\n`,
  );
  child.kill();
}
