import { type ChildProcess, fork } from 'node:child_process';

/**
 * A benchmark's clients in a process of their own, so that what they spend building requests and
 * reading answers is not counted in the server's process. The parent sends one message a phase;
 * the child answers with what its own clock measured.
 */
type Answer = { id: number; value: unknown } | { id: number; error: string };

export class ChildJobs<Job> {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly child: ChildProcess,
    label: string,
  ) {
    child.on('message', (answer: Answer) => {
      const waiter = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if ('error' in answer) waiter?.reject(new Error(`${label}: ${answer.error}`));
      else waiter?.resolve(answer.value);
    });
    child.on('exit', (code) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`${label} exited ${code}`));
      this.pending.clear();
    });
  }

  /** Forks `module` (a .ts file run through tsx) and waits for its serveJobs to say it is ready. */
  static async open<Job>(module: URL, args: string[], label: string): Promise<ChildJobs<Job>> {
    const child = fork(module.pathname, args, {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const jobs = new ChildJobs<Job>(child, label);
    await new Promise<void>((resolve, reject) => {
      jobs.pending.set(0, { resolve: () => resolve(), reject });
    });
    return jobs;
  }

  send<T>(job: Job): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, job });
    });
  }

  close(): void {
    this.child.kill();
  }
}

/** The child's side: performs each job the parent sends and answers with its value or error. */
export function serveJobs<Job>(perform: (job: Job) => Promise<unknown>): void {
  process.on('message', (message: { id: number; job: Job }) => {
    perform(message.job).then(
      (value) => process.send!({ id: message.id, value: value ?? null } satisfies Answer),
      (error: unknown) =>
        process.send!({
          id: message.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies Answer),
    );
  });
  process.send!({ id: 0, value: null } satisfies Answer);
}
