import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, startChild, waitFor } from '../../scripts/conformance/processes.js';
import { registerUpstream } from '../../scripts/conformance/setup.js';
import { createLogger } from '../../src/app/logger.js';
import { createAppServer } from '../../src/app/server.js';
import { createServices } from '../../src/app/services.js';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { httpClient } from '../lifecycle/api.js';
import { adminPrincipal, noTool } from '../lifecycle/bench-tools.js';
import { fmt, percentile, type Timing } from '../lifecycle/measure.js';
import { ChildJobs } from '../support/child-jobs.js';
import type { GatewayJob, Overhead } from './client-process.js';
import { call, mcpClient, pendingCallId } from './clients.js';

/**
 * The MCP gateway (issue 27, item 8), each figure beside its baseline in one run:
 * (a) the reference server's `test_simple_text` through /mcp/<server> vs the same call made to the
 *     reference server directly with the SDK client (the overhead's p50; target ≤ 5 ms), and the
 *     server's CPU per relayed call (less at the mercy of a shared machine than time);
 * (b) a built-in no-op tool through /mcp vs a GraphQL `requestToolCall` of the same tool (calls/s;
 *     target ≥ 250 on 2 cores);
 * (c) a held call answered: from sending `approveToolCall` to the held tools/call's answer (p99;
 *     target ≤ 100 ms).
 * `npm run bench -- gateway [calls] [decisions]`; DATABASE_URL runs it on Postgres instead of PGlite
 * (give it a database of its own: the bench adds tokens, rules and an upstream). The reference server comes from
 * ../shared/peers/mcp-conformance (MCP_CONFORMANCE_DIR overrides). Nothing is asserted.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SHARED = process.env.MCP_CONFORMANCE_DIR ?? resolve(ROOT, '../shared/peers/mcp-conformance');
const WORKERS = 8;

const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
const p50 = (xs: number[]) => percentile(sorted(xs), 50);
const p99 = (xs: number[]) => percentile(sorted(xs), 99);

/**
 * A phase's timing with the server process's CPU per call over it (this process: the hosts are not
 * in it), its warm-up calls counted too.
 */
async function serverCpu(
  warmUp: number,
  phase: () => Promise<Timing>,
): Promise<{ value: Timing; cpuMs: number }> {
  const before = process.cpuUsage();
  const value = await phase();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 / (value.calls + warmUp) };
}

function report(label: string, timing: Timing, cpuMs: number): void {
  process.stdout.write(
    `${label.padEnd(40)} ${fmt(timing.rate).padStart(7)} calls/s   p50 ${fmt(timing.p50)} ms   p99 ${fmt(timing.p99)} ms   server CPU ${fmt(cpuMs)} ms a call\n`,
  );
}

export async function main(args: string[]): Promise<void> {
  const calls = Number(args[0] ?? 500);
  const decisions = Number(args[1] ?? 50);
  if (!existsSync(join(SHARED, 'serve-everything.sh')))
    throw new Error(`bench gateway: no reference server at ${SHARED} (set MCP_CONFORMANCE_DIR)`);
  const refPort = await freePort();
  const reference = startChild('the reference server', 'bash', [
    join(SHARED, 'serve-everything.sh'),
    String(refPort),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'ats-bench-gateway-'));
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
  const origin = `http://127.0.0.1:${address.port}`;
  try {
    const probe = await fetch(`${origin}/mcp`, { method: 'POST' });
    if (probe.status === 404)
      throw new Error('bench gateway: this build serves no /mcp (404): the MCP gateway is not merged');
    const refUrl = `http://localhost:${refPort}/mcp`;
    await waitFor(
      'the reference server',
      300_000,
      async () => ((await fetch(refUrl)).status ? true : undefined),
      reference,
    );

    const admin = await services.tokens.create({ name: 'bench', role: 'ADMIN' });
    const agent = await services.tokens.create({
      name: 'bench-agent',
      role: 'AGENT',
      userId: 'bench-user',
      profiles: ['bench'],
    });
    const approver = httpClient(
      `${origin}/graphql`,
      (await services.tokens.create({ name: 'bench-approver', role: 'APPROVER', users: ['bench-user'] }))
        .secret,
    );
    const principal = adminPrincipal(admin.token.id);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'bench', toolPattern: 'bench.noop', effect: 'ALLOW' },
      principal,
    );
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'bench', toolPattern: 'bench.ask', effect: 'ASK' },
      principal,
    );
    const upstreamToken = await registerUpstream(`${origin}/graphql`, admin.secret, 'ref', refUrl);
    process.stdout.write(
      `gateway benchmark on ${database.driver}, ${cpus().length} cores, ${new Date().toISOString()}\n` +
        `sizes: ${calls} calls per figure (${WORKERS} workers for calls/s), ${decisions} decisions\n` +
        'the hosts of (a) and (b) run in a process of their own; server, hosts and reference server share this machine\n\n',
    );

    const hostsProcess = await ChildJobs.open<GatewayJob>(
      new URL('./client-process.ts', import.meta.url),
      [],
      'bench hosts',
    );
    try {
      // (a) one call through the gateway vs directly, alternated in the hosts' process.
      const cpuBefore = process.cpuUsage();
      const ms = await hostsProcess.send<Overhead>({
        type: 'overhead',
        directUrl: refUrl,
        throughUrl: `${origin}/mcp/ref`,
        token: upstreamToken,
        warmUp: 20,
        calls,
      });
      process.stdout.write('(a) test_simple_text, sequential\n');
      process.stdout.write(
        `  directly to the reference server        p50 ${fmt(p50(ms.direct))} ms   p99 ${fmt(p99(ms.direct))} ms\n`,
      );
      process.stdout.write(
        `  through /mcp/ref                        p50 ${fmt(p50(ms.through))} ms   p99 ${fmt(p99(ms.through))} ms\n`,
      );
      process.stdout.write(
        `  overhead p50 ${fmt(p50(ms.through) - p50(ms.direct))} ms (target ≤ 5 ms; baseline: the direct call)\n`,
      );
      const cpu = process.cpuUsage(cpuBefore);
      process.stdout.write(
        `  server CPU per relayed call ${fmt((cpu.user + cpu.system) / 1000 / (calls + 20))} ms (the direct calls cost this process nothing)\n\n`,
      );

      // (b) the no-op through /mcp, one session per worker, vs requestToolCall on a run per worker.
      process.stdout.write(`(b) bench.noop, ${WORKERS} concurrent callers\n`);
      const job = { token: agent.secret, workers: WORKERS, warmUp: WORKERS * 5, calls };
      const viaMcp = await serverCpu(job.warmUp, () =>
        hostsProcess.send<Timing>({ type: 'mcp', url: `${origin}/mcp`, ...job }),
      );
      report('  through /mcp (tools/call)', viaMcp.value, viaMcp.cpuMs);
      const viaGraphql = await serverCpu(job.warmUp, () =>
        hostsProcess.send<Timing>({ type: 'graphql', endpoint: `${origin}/graphql`, ...job }),
      );
      report('  GraphQL requestToolCall (baseline)', viaGraphql.value, viaGraphql.cpuMs);
      process.stdout.write(
        `  /mcp ${fmt(viaMcp.value.rate)} calls/s (target ≥ 250 on 2 cores; baselines: GraphQL above, ${fmt((viaMcp.value.rate / viaGraphql.value.rate) * 100)} % of it; IBM ContextForge 250–400 per pod with 16–24 workers)\n\n`,
      );
    } finally {
      hostsProcess.close();
    }

    // (c) a held tools/call answered: approve's send → the call's answer.
    const waits: number[] = [];
    const host = await mcpClient(`${origin}/mcp`, agent.secret);
    for (let marker = 0; marker < decisions; marker += 1) {
      const held = call(host, 'bench__ask', { marker });
      const id = await pendingCallId(approver, marker);
      const began = performance.now();
      const approved = approver('mutation ($id: ID!) { approveToolCall(id: $id) { id } }', { id });
      await held;
      waits.push(performance.now() - began);
      await approved;
    }
    process.stdout.write(`(c) decision → held call answered, ${decisions} decisions\n`);
    process.stdout.write(
      `  p50 ${fmt(p50(waits))} ms   p99 ${fmt(p99(waits))} ms (target p99 ≤ 100 ms; baseline: Temporal Cloud's signal p99 91 ms)\n`,
    );
    await host.close();
  } finally {
    await server.close();
    await services.stop();
    await reference.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
