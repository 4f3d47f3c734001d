import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** scenario → check id → status (SUCCESS, FAILURE, WARNING, …), as the suite wrote them. */
export type SuiteResult = Map<string, Map<string, string>>;
/** `scenario/check` → the suite's reason for a check that did not pass. */
export type Reasons = Map<string, string>;

export interface SuiteRun {
  label: string;
  results: SuiteResult;
  reasons: Reasons;
  /** Why the run itself failed (a timeout, a crash); null when it ended on its own. */
  failure: string | null;
  output: string;
}

/** Runs the shared `run-suite.sh` against `url` (bounded by `timeoutMs`) and reads its checks.json files. */
export async function runSuite(
  shared: string,
  label: string,
  url: string,
  extra: string[],
  timeoutMs: number,
): Promise<SuiteRun> {
  const outDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const child = spawn('bash', [join(shared, 'run-suite.sh'), url, '-o', outDir, ...extra], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  const { results, reasons } = readResults(outDir);
  rmSync(outDir, { recursive: true, force: true });
  const failure = timedOut
    ? `timed out after ${timeoutMs / 1000} s (a hang)`
    : results.size === 0
      ? `the suite wrote no results (exit ${code}):\n${output.slice(-2000)}`
      : null;
  return { label, results, reasons, failure, output };
}

function readResults(outDir: string): { results: SuiteResult; reasons: Reasons } {
  const results: SuiteResult = new Map();
  const reasons: Reasons = new Map();
  for (const dir of readdirSync(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
    const file = join(outDir, dir, 'checks.json');
    if (!scenario || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, 'utf8')) as {
      id: string;
      status: string;
      errorMessage?: string;
      details?: { message?: string };
    }[];
    results.set(scenario, new Map(checks.map((c) => [c.id, c.status])));
    for (const c of checks) {
      const reason = c.errorMessage ?? c.details?.message;
      if (c.status !== 'SUCCESS' && reason) reasons.set(`${scenario}/${c.id}`, reason.slice(0, 300));
    }
  }
  return { results, reasons };
}

const count = (results: SuiteResult, status: string) =>
  [...results.values()].reduce((n, checks) => n + [...checks.values()].filter((s) => s === status).length, 0);

export const passed = (run: SuiteRun) => count(run.results, 'SUCCESS');

/**
 * The checks `baseline` passed that `candidate` did not (missing scenarios included), as lines
 * `scenario/check: STATUS (reason)`.
 */
export function regressions(baseline: SuiteResult, candidate: SuiteRun): string[] {
  const lines: string[] = [];
  for (const [scenario, checks] of baseline)
    for (const [id, status] of checks) {
      if (status !== 'SUCCESS') continue;
      const got = candidate.results.get(scenario)?.get(id) ?? 'MISSING (the scenario wrote no result)';
      const reason = candidate.reasons.get(`${scenario}/${id}`);
      if (got !== 'SUCCESS') lines.push(`${scenario}/${id}: ${got}${reason ? ` (${reason})` : ''}`);
    }
  return lines;
}

/** Every check of `run` that did not pass, and every expected scenario it did not run. */
export function notPassing(run: SuiteRun, scenarios: string[]): string[] {
  const lines = scenarios.filter((s) => !run.results.has(s)).map((s) => `${s}: MISSING`);
  for (const [scenario, checks] of run.results)
    for (const [id, status] of checks) {
      const reason = run.reasons.get(`${scenario}/${id}`);
      if (status !== 'SUCCESS') lines.push(`${scenario}/${id}: ${status}${reason ? ` (${reason})` : ''}`);
    }
  return lines;
}
