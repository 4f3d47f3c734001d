import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EmbeddedServer {
  url: string;
  adminToken: string;
  dataDir: string;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LISTENING = /listening on (http:\/\/\S+\/graphql)/;
const START_LIMIT_MS = 120_000;

/**
 * The server as `npm start` runs it, as a child process on a fresh embedded database in a temp
 * folder and a free port, so the demo stays a client of the public API even when it brings its own server.
 */
export async function startEmbeddedServer(env: Record<string, string> = {}): Promise<EmbeddedServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ats-demo-'));
  const adminToken = `demo-admin-${randomBytes(12).toString('hex')}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/app/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(dataDir, 'data'),
      DATABASE_URL: '',
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = once(child, 'exit');
  try {
    const url = await listeningUrl(child, () => output);
    return {
      url,
      adminToken,
      dataDir,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

function listeningUrl(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`the embedded server did not start in ${START_LIMIT_MS / 1000} s:\n${output()}`)),
      START_LIMIT_MS,
    );
    child.stdout!.on('data', () => {
      const match = LISTENING.exec(output());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the embedded server exited with ${code} before listening:\n${output()}`));
    });
  });
}
