import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  origin: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Graceful stop (SIGTERM to the whole process group), waits for the exit. */
  stop(): Promise<void>;
  /** Abrupt death: SIGKILL to the whole process group. */
  kill(): Promise<void>;
}

const LISTENING = /listening on (http:\/\/\S+\/graphql)/;

/** Starts the server the way a newcomer does (`npm start`), on the given environment. */
export async function startServer(
  env: Record<string, string>,
  command: string[] = ['npm', 'start'],
): Promise<ServerProcess> {
  const child = spawn(command[0]!, command.slice(1), {
    cwd: new URL('../..', import.meta.url),
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    detached: true,
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
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s:\n${output}`)), 60_000);
    const check = () => {
      const match = LISTENING.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, name);
    } catch {}
    await exited;
  };
  return {
    child,
    url,
    origin: new URL(url).origin,
    output: () => output,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
  };
}

export async function graphqlOver(
  url: string,
  token: string | null,
  query: string,
  variables?: Record<string, unknown>,
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as {
    // biome-ignore lint/suspicious/noExplicitAny: the caller asserts the exact response shape.
    data?: any;
    errors?: Array<{ message: string; extensions?: { code?: string } }>;
  };
}
