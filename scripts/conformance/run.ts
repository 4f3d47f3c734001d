/**
 * The MCP gateway against the official MCP conformance suite (issue 27, item 6). Starts this server
 * (embedded PGlite in a temporary folder), the suite's reference server, registers the reference
 * server as an upstream MCP server whose tools a profile may call without a person, and runs the
 * suite three ways: against the reference server directly (the baseline), through the gateway's
 * /mcp/<server> (behind a proxy that adds the agent token: it must pass every check the baseline
 * passes), and against /mcp for the scenarios a gateway of registry tools must pass. Exit 0 only
 * when both hold. Every wait is bounded: a hang ends as a named failure.
 *
 *   npx tsx scripts/conformance/run.ts        (.ci/run: step conformance)
 *
 * The suite and its reference server are not part of the repository: MCP_CONFORMANCE_DIR names the
 * folder that holds them (.ci/run sets it); without it this fails, saying so.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startAuthProxy } from './auth-proxy.js';
import { type Child, freePort, startChild, waitFor } from './processes.js';
import { registerUpstream } from './setup.js';
import { notPassing, passed, regressions, runSuite, type SuiteRun } from './suite.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SHARED = process.env.MCP_CONFORMANCE_DIR ?? '';
const UPSTREAM = 'everything';
/** What /mcp (registry tools, not one server's) must pass: the protocol, not the reference server's tools. */
const GATEWAY_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'dns-rebinding-protection',
];
const FULL_SUITE_MS = 15 * 60_000;
const ONE_SCENARIO_MS = 3 * 60_000;

const children: Child[] = [];
const closers: (() => Promise<void>)[] = [];

async function main(): Promise<number> {
  if (
    !SHARED ||
    !existsSync(join(SHARED, 'run-suite.sh')) ||
    !existsSync(join(SHARED, 'serve-everything.sh'))
  ) {
    console.error(
      `conformance: MCP_CONFORMANCE_DIR (${SHARED || 'unset'}) does not hold the MCP conformance suite ` +
        '(run-suite.sh, serve-everything.sh). Nothing was run.',
    );
    return 1;
  }
  execFileSync('node', ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' });

  const refPort = await freePort();
  const reference = startChild('the reference server', 'bash', [
    join(SHARED, 'serve-everything.sh'),
    String(refPort),
  ]);
  children.push(reference);
  const refUrl = `http://localhost:${refPort}/mcp`;

  const admin = randomBytes(24).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'ats-conformance-'));
  closers.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const server = startChild('this server', process.execPath, ['dist/app/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      ADMIN_TOKEN: admin,
      LOG_LEVEL: 'warn',
    },
  });
  children.push(server);
  const graphqlUrl = await waitFor(
    'this server listening',
    120_000,
    async () => /listening on (http:\/\/\S+\/graphql)/.exec(server.output())?.[1],
    server,
  );
  // The first start installs the reference server's packages (npm ci) into the cache.
  await waitFor(
    'the reference server listening',
    300_000,
    async () => ((await fetch(refUrl, { signal: AbortSignal.timeout(2_000) })).status ? true : undefined),
    reference,
  );

  const origin = new URL(graphqlUrl).origin;
  if (
    (await fetch(`${origin}/mcp`, { method: 'POST', signal: AbortSignal.timeout(10_000) })).status === 404
  ) {
    console.error(`conformance: ${origin}/mcp answers 404: this build has no MCP gateway.`);
    return 1;
  }
  const agentToken = await registerUpstream(graphqlUrl, admin, UPSTREAM, refUrl);
  const proxy = await startAuthProxy(new URL(origin), agentToken);
  closers.push(proxy.close);

  const direct = await runSuite(SHARED, 'reference server, directly', refUrl, [], FULL_SUITE_MS);
  const through = await runSuite(
    SHARED,
    `gateway /mcp/${UPSTREAM}`,
    `${proxy.url}/mcp/${UPSTREAM}`,
    [],
    FULL_SUITE_MS,
  );
  const gateway: SuiteRun[] = [];
  for (const scenario of GATEWAY_SCENARIOS)
    gateway.push(
      await runSuite(
        SHARED,
        `gateway /mcp ${scenario}`,
        `${proxy.url}/mcp`,
        ['--scenario', scenario],
        ONE_SCENARIO_MS,
      ),
    );

  return report(direct, through, gateway);
}

function report(direct: SuiteRun, through: SuiteRun, gateway: SuiteRun[]): number {
  const problems: string[] = [];
  const line = (run: SuiteRun) =>
    `  ${run.label.padEnd(42)} ${String(passed(run)).padStart(3)} checks passed${run.failure ? `  (${run.failure.split('\n')[0]})` : ''}`;
  console.log('\nMCP conformance summary');
  for (const run of [direct, through, ...gateway]) console.log(line(run));
  for (const run of [direct, through, ...gateway])
    if (run.failure) problems.push(`${run.label}: ${run.failure}`);
  for (const lost of regressions(direct.results, through))
    problems.push(`gateway /mcp/${UPSTREAM} fails what the reference server passes: ${lost}`);
  for (const [i, run] of gateway.entries())
    for (const miss of notPassing(run, [GATEWAY_SCENARIOS[i]!])) problems.push(`gateway /mcp: ${miss}`);
  if (problems.length === 0) {
    console.log(
      '\nconformance: the gateway passes every check the reference server passes, and /mcp the protocol scenarios',
    );
    return 0;
  }
  console.log(`\nconformance: ${problems.length} difference(s):`);
  for (const problem of problems) console.log(`  - ${problem}`);
  return 1;
}

async function cleanUp() {
  await Promise.allSettled(children.map((c) => c.stop()));
  for (const close of closers) await close().catch(() => undefined);
}

const overall = setTimeout(() => {
  console.error('conformance: the whole run took over 40 minutes; stopping');
  void cleanUp().finally(() => process.exit(1));
}, 40 * 60_000);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void cleanUp().finally(() => process.exit(130)));

// The process ends in the last step, so nothing is left to await it.
void main()
  .catch((error: unknown) => {
    console.error(`conformance: ${(error as Error).message}`);
    return 1;
  })
  .then(async (code) => {
    clearTimeout(overall);
    await cleanUp();
    process.exit(code);
  });
