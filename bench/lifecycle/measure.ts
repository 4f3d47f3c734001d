/** Timing helpers shared by the lifecycle benchmark's phases. */

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
export const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 0) : 'n/a');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Timing {
  calls: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
}

/**
 * Runs `n` tasks on `workers` workers; worker w passes its own index to the task so that each can
 * keep to its own run. Returns the throughput and latency percentiles of the whole batch.
 */
export async function pool(
  n: number,
  workers: number,
  task: (i: number, worker: number) => Promise<unknown>,
): Promise<Timing> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await task(i, worker);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    calls: n,
    seconds,
    rate: n / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

export function report(label: string, timing: Timing): Timing {
  process.stdout.write(
    `${label.padEnd(52)} ${fmt(timing.rate).padStart(7)} calls/s   p50 ${fmt(timing.p50)} ms   p99 ${fmt(timing.p99)} ms\n`,
  );
  return timing;
}

// RSS keeps shrinking for a while after a burst of work; wait until it holds still.
export async function settle() {
  let last = 0;
  for (let i = 0; i < 20; i += 1) {
    global.gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const rss = process.memoryUsage().rss;
    if (last && Math.abs(rss - last) < 512 * 1024) break;
    last = rss;
  }
  return { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed };
}
