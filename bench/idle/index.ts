import { spawn } from 'node:child_process';
import postgres from 'postgres';

/**
 * `npm run bench -- idle [warmupSeconds] [windowSeconds]` (defaults 20 and 60): what a server does to
 * Postgres while nobody uses it. It creates a database of its own next to `DATABASE_URL` (required),
 * starts `node dist/app/main.js` on it, waits for ready and the warm-up, then reads
 * `pg_stat_database.xact_commit` and `tup_returned + tup_fetched` of that database across the window
 * (read from another database, so the sampling counts nothing). The baseline is the same window on a
 * second fresh database with no server connected: Postgres's own activity there. Backends flush
 * their statistics about once a second while busy and within 10 s when idle, hence the long window.
 * Build dist/ first. Target (issue 30): ≤ 1 commit/s.
 */
export async function main(args: string[]): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('bench idle needs DATABASE_URL (a Postgres it may create databases on)\n');
    process.exit(2);
  }
  const warmup = Number(args[0] ?? 20) * 1000;
  const window = Number(args[1] ?? 60) * 1000;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  const suffix = `${process.pid}_${Date.now()}`;
  const serverDb = `ats_idle_server_${suffix}`;
  const emptyDb = `ats_idle_empty_${suffix}`;
  await admin.unsafe(`create database ${serverDb}`);
  await admin.unsafe(`create database ${emptyDb}`);
  const serverUrl = withDatabase(url, serverDb);
  const child = spawn(process.execPath, ['dist/app/main.js'], {
    cwd: new URL('../..', import.meta.url),
    env: { ...process.env, DATABASE_URL: serverUrl, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await ready(child);
    process.stdout.write(`idle server on Postgres: warm-up ${warmup / 1000} s, window ${window / 1000} s\n`);
    await new Promise((r) => setTimeout(r, warmup));
    const [server, empty] = await Promise.all([
      sample(admin, serverDb, window),
      sample(admin, emptyDb, window),
    ]);
    const line = (label: string, s: Sample) =>
      `${label.padEnd(34)} ${s.commits.toFixed(2).padStart(6)} commits/s  ${s.rows.toFixed(1).padStart(7)} rows read/s\n`;
    process.stdout.write(line('idle server', server));
    process.stdout.write(line('baseline: database, no server', empty));
    process.stdout.write('target: idle server <= 1 commit/s (issue 30)\n');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await admin.unsafe(`drop database if exists ${serverDb} with (force)`);
    await admin.unsafe(`drop database if exists ${emptyDb} with (force)`);
    await admin.end();
  }
}

interface Sample {
  commits: number;
  rows: number;
}

async function sample(sql: postgres.Sql, database: string, windowMs: number): Promise<Sample> {
  const read = async () => {
    const [row] = await sql<{ commits: string; rows: string }[]>`
      select xact_commit::text as commits, (tup_returned + tup_fetched)::text as rows
      from pg_stat_database where datname = ${database}`;
    return { commits: Number(row?.commits ?? 0), rows: Number(row?.rows ?? 0) };
  };
  const before = await read();
  await new Promise((r) => setTimeout(r, windowMs));
  const after = await read();
  const seconds = windowMs / 1000;
  return { commits: (after.commits - before.commits) / seconds, rows: (after.rows - before.rows) / seconds };
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function ready(child: ReturnType<typeof spawn>): Promise<void> {
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = /listening on (http:\/\/\S+)\/graphql/.exec(output);
    if (match) {
      const response = await fetch(`${match[1]}/health`).catch(() => null);
      if (response?.status === 200) return;
    }
    if (child.exitCode !== null) throw new Error(`server exited before ready:\n${output}`);
    if (Date.now() > deadline) throw new Error(`server not ready within 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
