import { type ChildProcess, fork } from 'node:child_process';
import type { ClientAnswer, ClientJob } from './client-process.js';
import type { Timing } from './measure.js';

/**
 * The parent's handle on the benchmark's client process (client-process.ts): each phase is one
 * message, and the child answers with the phase's timing as its own clock measured it.
 */
export class BenchClient {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (answer: ClientAnswer) => {
      const waiter = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if ('error' in answer) waiter?.reject(new Error(`bench client: ${answer.error}`));
      else waiter?.resolve(answer.value);
    });
    child.on('exit', (code) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`bench client exited ${code}`));
      this.pending.clear();
    });
  }

  static async open(endpoint: string, agentSecret: string, approverSecret: string): Promise<BenchClient> {
    const child = fork(
      new URL('./client-process.ts', import.meta.url).pathname,
      [endpoint, agentSecret, approverSecret],
      { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    const client = new BenchClient(child);
    await new Promise<void>((resolve, reject) => {
      client.pending.set(0, { resolve: () => resolve(), reject });
    });
    return client;
  }

  private send<T>(job: ClientJob): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, job });
    });
  }

  /** New runs of the agent; followed ones get a journalEvents subscription in the client. */
  runs(n: number, follow = true): Promise<string[]> {
    return this.send({ type: 'runs', n, follow });
  }

  /** `n` auto-approved calls on `workers` workers, worker w on runIds[w % runIds.length]. */
  auto(n: number, workers: number, runIds: string[]): Promise<Timing> {
    return this.send({ type: 'auto', n, workers, runIds });
  }

  /** `n` approved round trips; every run must be a followed one. */
  approved(n: number, workers: number, runIds: string[]): Promise<Timing> {
    return this.send({ type: 'approved', n, workers, runIds });
  }

  /** Ends every journal subscription the client holds (idle ones cost the database token checks). */
  unfollow(): Promise<void> {
    return this.send({ type: 'unfollow' });
  }

  close(): void {
    this.child.kill();
  }
}
