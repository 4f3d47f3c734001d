import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A child in its own process group, so stopping it stops what it started (npx, tsx, node). */
export interface Child {
  name: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function startChild(
  name: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Child {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = once(child, 'exit');
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {}
  };
  return {
    name,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signal('SIGTERM');
      const killer = setTimeout(() => signal('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Waits for `ready` to return a value, failing by name after `timeoutMs` or when the child exits. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  ready: () => Promise<T | undefined>,
  child?: Child,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.process.exitCode !== null)
      throw new Error(
        `${what}: ${child.name} exited with ${child.process.exitCode}:\n${child.output().slice(-2000)}`,
      );
    const value = await ready().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `${what}: not ready after ${timeoutMs / 1000} s${child ? `:\n${child.output().slice(-2000)}` : ''}`,
  );
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
