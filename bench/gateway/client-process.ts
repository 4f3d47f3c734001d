import { httpClient } from '../lifecycle/api.js';
import { pool, type Timing } from '../lifecycle/measure.js';
import { serveJobs } from '../support/child-jobs.js';
import { call, mcpClient } from './clients.js';

/**
 * The gateway benchmark's hosts, in a process of their own (as the lifecycle benchmark's client
 * is): the SDK clients of (a) and (b) and the GraphQL baseline of (b) spend their CPU here, not
 * in the server's process that the figures are about.
 */
export type GatewayJob =
  | { type: 'overhead'; directUrl: string; throughUrl: string; token: string; warmUp: number; calls: number }
  | { type: 'mcp'; url: string; token: string; workers: number; warmUp: number; calls: number }
  | { type: 'graphql'; endpoint: string; token: string; workers: number; warmUp: number; calls: number };

export interface Overhead {
  direct: number[];
  through: number[];
}

async function overhead(job: Extract<GatewayJob, { type: 'overhead' }>): Promise<Overhead> {
  const direct = await mcpClient(job.directUrl);
  const through = await mcpClient(job.throughUrl, job.token);
  try {
    for (let i = 0; i < job.warmUp; i += 1)
      await Promise.all([call(direct, 'test_simple_text'), call(through, 'test_simple_text')]);
    // Alternated so that drift hits both sides alike.
    const ms: Overhead = { direct: [], through: [] };
    for (let i = 0; i < job.calls; i += 1)
      for (const side of ['direct', 'through'] as const) {
        const began = performance.now();
        await call(side === 'direct' ? direct : through, 'test_simple_text');
        ms[side].push(performance.now() - began);
      }
    return ms;
  } finally {
    await Promise.allSettled([direct.close(), through.close()]);
  }
}

async function viaMcp(job: Extract<GatewayJob, { type: 'mcp' }>): Promise<Timing> {
  const hosts = await Promise.all(Array.from({ length: job.workers }, () => mcpClient(job.url, job.token)));
  try {
    await pool(job.warmUp, job.workers, (_i, w) => call(hosts[w]!, 'bench__noop'));
    return await pool(job.calls, job.workers, (_i, w) => call(hosts[w]!, 'bench__noop'));
  } finally {
    await Promise.allSettled(hosts.map((h) => h.close()));
  }
}

const REQUEST =
  'mutation ($runId: ID!) { requestToolCall(input: { runId: $runId, name: "bench.noop" }) { id status } }';

async function viaGraphql(job: Extract<GatewayJob, { type: 'graphql' }>): Promise<Timing> {
  const gql = httpClient(job.endpoint, job.token);
  const runs = await Promise.all(
    Array.from(
      { length: job.workers },
      async () =>
        (await gql('mutation { createRun(input: { profileId: "bench" }) { id status } }')).createRun!.id,
    ),
  );
  await pool(job.warmUp, job.workers, (_i, w) => gql(REQUEST, { runId: runs[w] }));
  return pool(job.calls, job.workers, (_i, w) => gql(REQUEST, { runId: runs[w] }));
}

serveJobs<GatewayJob>((job) => {
  switch (job.type) {
    case 'overhead':
      return overhead(job);
    case 'mcp':
      return viaMcp(job);
    case 'graphql':
      return viaGraphql(job);
  }
});
