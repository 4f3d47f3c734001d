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
import { fmt, percentile, pool, report, type Timing } from '../lifecycle/measure.js';
import { call, mcpClient, pendingCallId } from './clients.js';

/**
 * The MCP gateway (issue 27, item 8), each figure beside its baseline in one run:
 * (a) the reference server's `test_simple_text` through /mcp/<server> vs the same call made to the
 *     reference server directly with the SDK client (the overhead's p50; target ≤ 5 ms), and the
 *     CPU of this process per call on each side (less at the mercy of a shared machine than time);
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
        'client, server and reference server share this machine; figures from one run are noisy\n\n',
    );

    // (a) one call through the gateway vs directly, alternated so drift hits both alike.
    const direct = await mcpClient(refUrl);
    const through = await mcpClient(`${origin}/mcp/ref`, upstreamToken);
    const ms = { direct: [] as number[], through: [] as number[] };
    // CPU of this process (bench client and server; the reference server is a child) per side.
    const cpu = { direct: 0, through: 0 };
    for (let i = 0; i < 20; i += 1)
      await Promise.all([call(direct, 'test_simple_text'), call(through, 'test_simple_text')]);
    for (let i = 0; i < calls; i += 1)
      for (const [side, client] of [
        ['direct', direct],
        ['through', through],
      ] as const) {
        const began = performance.now();
        const used = process.cpuUsage();
        await call(client, 'test_simple_text');
        ms[side].push(performance.now() - began);
        const { user, system } = process.cpuUsage(used);
        cpu[side] += (user + system) / 1000;
      }
    const p50 = (xs: number[]) =>
      percentile(
        [...xs].sort((x, y) => x - y),
        50,
      );
    const p99 = (xs: number[]) =>
      percentile(
        [...xs].sort((x, y) => x - y),
        99,
      );
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
    process.stdout.write(
      `  this process's CPU per call: direct ${fmt(cpu.direct / calls)} ms, through /mcp/ref ${fmt(cpu.through / calls)} ms (the gateway's part: ${fmt((cpu.through - cpu.direct) / calls)} ms)\n\n`,
    );
    await Promise.allSettled([direct.close(), through.close()]);

    // (b) the no-op through /mcp, one session per worker, vs requestToolCall on a run per worker.
    process.stdout.write(`(b) bench.noop, ${WORKERS} concurrent callers\n`);
    const hosts = await Promise.all(
      Array.from({ length: WORKERS }, () => mcpClient(`${origin}/mcp`, agent.secret)),
    );
    await pool(WORKERS * 5, WORKERS, (_i, w) => call(hosts[w]!, 'bench__noop'));
    const viaMcp: Timing = report(
      '  through /mcp (tools/call)',
      await pool(calls, WORKERS, (_i, w) => call(hosts[w]!, 'bench__noop')),
    );
    const gql = httpClient(`${origin}/graphql`, agent.secret);
    const runs = await Promise.all(
      Array.from(
        { length: WORKERS },
        async () =>
          (await gql('mutation { createRun(input: { profileId: "bench" }) { id status } }')).createRun!.id,
      ),
    );
    const REQUEST =
      'mutation ($runId: ID!) { requestToolCall(input: { runId: $runId, name: "bench.noop" }) { id status } }';
    const viaGraphql = report(
      '  GraphQL requestToolCall (baseline)',
      await pool(calls, WORKERS, (_i, w) => gql(REQUEST, { runId: runs[w] })),
    );
    process.stdout.write(
      `  /mcp ${fmt(viaMcp.rate)} calls/s (target ≥ 250 on 2 cores; baselines: GraphQL above, ${fmt((viaMcp.rate / viaGraphql.rate) * 100)} % of it; IBM ContextForge 250–400 per pod with 16–24 workers)\n\n`,
    );

    // (c) a held tools/call answered: approve's send → the call's answer.
    const waits: number[] = [];
    const host = hosts[0]!;
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
    await Promise.allSettled(hosts.map((h) => h.close()));
  } finally {
    await server.close();
    await services.stop();
    await reference.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
