import { fork } from 'node:child_process';
import type { WorkerJob, WorkerMessage, WorkerTask } from './ceiling-worker.js';

/**
 * Splits `runIds` over `processes` forked workers, starts them together once all have warmed up,
 * and returns the transactions per second they made in total, and the CPU time all of them spent
 * per transaction (Node's only: Postgres' is not counted).
 */
export async function acrossProcesses(
  url: string,
  task: WorkerTask,
  runIds: string[],
  processes: number,
  seconds: number,
): Promise<{ perSecond: number; cpuMicrosPerTx: number }> {
  const children = Array.from({ length: processes }, (_, p) => {
    const child = fork(new URL('./ceiling-worker.ts', import.meta.url), {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const job: WorkerJob = { url, task, seconds, runIds: runIds.filter((_, i) => i % processes === p) };
    const messages: WorkerMessage[] = [];
    const waiters: (() => void)[] = [];
    child.on('message', (message: WorkerMessage) => {
      messages.push(message);
      waiters.shift()?.();
    });
    let gone = false;
    const exited = new Promise<void>((resolve, reject) =>
      child.on('exit', (code) => {
        gone = true;
        waiters.shift()?.();
        if (code) reject(new Error(`ceiling worker exited with ${code}`));
        else resolve();
      }),
    );
    const next = async () => {
      while (messages.length === 0) {
        if (gone) throw new Error('ceiling worker exited before it answered');
        await new Promise<void>((r) => waiters.push(r));
      }
      return messages.shift()!;
    };
    child.send(job);
    return { child, next, exited };
  });
  await Promise.all(children.map((c) => c.next()));
  for (const { child } of children) child.send('go');
  const results = await Promise.all(children.map((c) => c.next()));
  await Promise.all(children.map((c) => c.exited.catch(() => {})));
  let done = 0;
  let slowest = 0;
  let cpuMs = 0;
  for (const result of results) {
    if (!('done' in result)) throw new Error('ceiling worker answered out of turn');
    done += result.done;
    slowest = Math.max(slowest, result.elapsedMs);
    cpuMs += result.cpuMs;
  }
  return { perSecond: done / (slowest / 1000), cpuMicrosPerTx: (cpuMs * 1000) / done };
}
