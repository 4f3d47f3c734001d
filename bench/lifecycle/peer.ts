import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

/**
 * The LangGraph JS + PostgresSaver peer from ../shared/peers/langgraph, run in the same benchmark
 * on the same Postgres server (in a database of its own, which it truncates). Its folder is
 * read-only, so it is copied to a cache directory keyed by its package-lock and installed there
 * once with `npm ci`.
 */

export interface PeerEngine {
  seqRate: number;
  seqP50: number;
  concRate: number;
  concP50: number;
  walBytesPerCall: number;
  transactionsPerCall: number;
}

export interface PeerFigures {
  sync: PeerEngine;
  async: PeerEngine;
  floor: PeerEngine;
  versions: Record<string, string>;
  synchronousCommit: string;
}

export type PeerOutcome = { figures: PeerFigures } | { unavailable: string };

const PEER_DIR =
  process.env.PEER_DIR ?? new URL('../../../shared/peers/langgraph/', import.meta.url).pathname;

/** Copies the peer's files (not its node_modules) and installs it, unless this lock was installed before. */
function install(): string {
  if (!existsSync(join(PEER_DIR, 'package-lock.json'))) throw new Error(`no peer at ${PEER_DIR}`);
  const lock = readFileSync(join(PEER_DIR, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex').slice(0, 16);
  const dir = join(homedir(), '.cache', 'ats-peer-langgraph', hash);
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(PEER_DIR)) {
    if (name !== 'node_modules' && statSync(join(PEER_DIR, name)).isFile()) {
      copyFileSync(join(PEER_DIR, name), join(dir, name));
    }
  }
  const marker = join(dir, '.installed');
  if (!existsSync(marker)) {
    process.stdout.write(`installing the LangGraph peer in ${dir} (npm ci, once per package-lock)\n`);
    const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (ci.status !== 0)
      throw new Error(`npm ci failed: ${(ci.stderr || ci.error?.message || '').trim().slice(-400)}`);
    writeFileSync(marker, new Date().toISOString());
  }
  return dir;
}

/** The peer's URL: the same server as ours, database `peer_langgraph` (created when missing). */
async function peerDatabase(url: string): Promise<string> {
  const peer = new URL(url);
  peer.pathname = '/peer_langgraph';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.href, { max: 1, onnotice: () => {} });
  try {
    const found = await sql`select 1 from pg_database where datname = 'peer_langgraph'`;
    if (found.length === 0) await sql`create database peer_langgraph`;
  } finally {
    await sql.end({ timeout: 5 });
  }
  return process.env.PEER_DATABASE_URL ?? peer.href;
}

interface PeerJson {
  synchronous_commit: string;
  versions: Record<string, string>;
  langgraph: EngineJson;
  langgraphSync: EngineJson;
  floor: EngineJson;
}
interface EngineJson {
  seq: { callsPerS: number; total: { p50: number } };
  conc: { callsPerS: number; total: { p50: number } };
  storage: { walBytesPerCall: number };
  sql: { transactionsPerCall: number };
}
const engine = (e: EngineJson): PeerEngine => ({
  seqRate: e.seq.callsPerS,
  seqP50: e.seq.total.p50,
  concRate: e.conc.callsPerS,
  concP50: e.conc.total.p50,
  walBytesPerCall: e.storage.walBytesPerCall,
  transactionsPerCall: e.sql.transactionsPerCall,
});

/** Runs the peer's bench.ts with its output shown as it goes; never throws (a missing peer is reported). */
export async function runPeer(
  databaseUrl: string,
  sizes: { seq: number; conc: number },
): Promise<PeerOutcome> {
  try {
    const dir = install();
    const url = await peerDatabase(databaseUrl);
    const resultsFile = join(tmpdir(), `ats-peer-langgraph-${process.pid}.json`);
    const env = {
      ...process.env,
      DATABASE_URL: url,
      SEQ_N: String(sizes.seq),
      CONC_N: String(sizes.conc),
      WORKERS: '8',
      RESULTS_FILE: resultsFile,
      DEADLINE_S: process.env.PEER_DEADLINE_S ?? '900',
    };
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(join(dir, 'node_modules', '.bin', 'tsx'), ['bench.ts'], {
        cwd: dir,
        env,
        stdio: 'inherit',
      });
      child.on('error', reject);
      child.on('exit', resolve);
    });
    if (code !== 0) throw new Error(`the peer's bench.ts exited ${code}`);
    const json = JSON.parse(readFileSync(resultsFile, 'utf8')) as PeerJson;
    return {
      figures: {
        sync: engine(json.langgraphSync),
        async: engine(json.langgraph),
        floor: engine(json.floor),
        versions: json.versions,
        synchronousCommit: json.synchronous_commit,
      },
    };
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}
