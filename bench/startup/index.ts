import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Start to ready: from spawning the process to its first 200 from /health, on a fresh PGlite data
 * directory (`npm start` as a newcomer types it, build-if-stale check included, and the compiled
 * server by itself) and again on the same directory (a restart), next to the floor of starting node
 * at all and to the same server under the tsx loader. Phases come from the
 * server's own log lines (pino times). `cpu` is the CPU time the process had used when it was ready
 * (user + system, all its threads, from /proc): on a machine others are using, it moves far less
 * than the wall time. `npm run bench -- startup [runs]`; build dist/ first (it holds the template).
 */
const root = new URL('../..', import.meta.url);

interface Sample {
  ready: number;
  cpu?: number;
  opened?: number;
  listening?: number;
}

async function startOnce(command: string[], dataDir: string | null): Promise<Sample> {
  const began = Date.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...(dataDir ? { DATA_DIR: dataDir } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own: npm's shell does not pass SIGTERM on to the server, so the group gets it.
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (!dataDir) {
    await exited;
    return { ready: Date.now() - began };
  }
  // Woken by the server's output rather than a poll, so no interval is added to the figure.
  const listening = new Promise<string>((resolve) => {
    const check = () => {
      const match = /listening on (http:\/\/\S+)\/graphql/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
  });
  const base = await Promise.race([
    listening,
    exited.then(() => {
      throw new Error(`server exited before ready:\n${output}`);
    }),
  ]);
  let ready = 0;
  let cpu: number | undefined;
  for (;;) {
    const response = await fetch(`${base}/health`).catch(() => null);
    if (response?.status === 200) {
      ready = Date.now() - began;
      // tsx relaunches node as a child of its own: only a plain node process's time is the server's.
      if (command[0] === 'node') cpu = cpuMs(child.pid!);
      break;
    }
    if (child.exitCode !== null) throw new Error(`server exited before ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  while (groupAlive(child.pid!)) await new Promise((r) => setTimeout(r, 20));
  const at = (msg: string) => {
    const line = output.split('\n').find((l) => l.includes(`"msg":"${msg}"`));
    return line ? (JSON.parse(line) as { time: number }).time - began : undefined;
  };
  return { ready, cpu, opened: at('database opened'), listening: at('listening') };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** utime + stime of a process in ms (fields 14 and 15 of /proc/<pid>/stat, in 10 ms ticks); undefined off Linux. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(label: string, command: string[], fresh: boolean | null, runs: number) {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i += 1) {
    const dataDir = fresh === null ? null : mkdtempSync(join(tmpdir(), 'ats-startup-'));
    try {
      if (dataDir && fresh === false) await startOnce(command, dataDir);
      samples.push(await startOnce(command, dataDir));
    } finally {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const pick = (key: keyof Sample) => {
    const values = samples.map((s) => s[key]).filter((v): v is number => v !== undefined);
    return values.length ? `${median(values)}`.padStart(6) : '     -';
  };
  process.stdout.write(
    `${label.padEnd(44)} ${pick('ready')} ms  (cpu ${pick('cpu')}, db opened ${pick('opened')}, listening ${pick('listening')})  runs ${runs}\n`,
  );
}

/**
 * The probe's own first fetch loads undici and costs this process tens of milliseconds (about 80 on
 * a quiet 2-core host): paid once here, before any clock runs, so that no start is charged for it.
 */
async function warmProbe(): Promise<void> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await (await fetch(`http://127.0.0.1:${port}/health`)).text();
  await new Promise((resolve) => server.close(resolve));
}

export async function main(args: string[]): Promise<void> {
  const runs = Number(args[0] ?? 3);
  await warmProbe();
  process.stdout.write(`start to ready, median of ${runs} (ms from spawn to the first 200 from /health)\n`);
  await measure("baseline: node -e ''", ['node', '-e', ''], null, runs);
  // What a newcomer types, the build-if-stale check included: the figure issue 30's target is about.
  await measure('npm start, fresh PGlite data dir', ['npm', 'start'], true, runs);
  await measure('compiled, fresh PGlite data dir', ['node', 'dist/app/main.js'], true, runs);
  await measure('compiled, restart on the same data dir', ['node', 'dist/app/main.js'], false, runs);
  await measure(
    'tsx loader, fresh PGlite data dir',
    ['node_modules/.bin/tsx', 'src/app/main.ts'],
    true,
    runs,
  );
  process.stdout.write('target: npm start, fresh data dir <= 2000 ms (issue 30)\n');
}
