import { type ChildProcess, fork } from 'node:child_process';

export interface PhaseReport {
  deliveries: number;
  /** Events the least served subscriber got: every subscriber should get them all. */
  fewest: number;
  /** First and last arrival at any subscriber (epoch ms). */
  first: number;
  last: number;
  p50: number;
  p99: number;
  max: number;
}

interface ChildReport {
  deliveries: number;
  fewest: number;
  first: number;
  last: number;
  lags: Array<[number, number]>;
}

/** Percentile of a whole-millisecond histogram. */
function percentile(histogram: Map<number, number>, total: number, p: number): number {
  if (total === 0) return Number.NaN;
  const rank = Math.min(total - 1, Math.floor((p / 100) * total));
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!;
    if (seen > rank) return bucket;
  }
  return Number.NaN;
}

/** One child process of subscribers (subscribers.ts) and its pending answers. */
class Child {
  private readonly process: ChildProcess;
  private readonly waiting = new Map<string, (m: never) => void>();

  constructor(endpoint: string, token: string, size: number) {
    this.process = fork(
      new URL('./subscribers.ts', import.meta.url).pathname,
      [endpoint, token, String(size)],
      {
        execArgv: ['--import', 'tsx'],
      },
    );
    this.process.on('message', (m: { type: string; message?: string }) => {
      if (m.type === 'error') process.stderr.write(`subscriber error: ${m.message}\n`);
      this.waiting.get(m.type)?.(m as never);
    });
  }

  next<T>(type: string, timeoutMs: number, send?: unknown): Promise<T> {
    const answer = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(type);
        reject(new Error(`subscribers: no ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(type, (m: never) => {
        clearTimeout(timer);
        this.waiting.delete(type);
        resolve(m as T);
      });
    });
    if (send) this.process.send(send);
    return answer;
  }

  kill(): void {
    this.process.kill();
  }
}

/**
 * The parent's handle on the subscribers, spread over child processes so that parsing a
 * thousand sockets' messages is not one thread's work; their figures are merged.
 */
export class Fleet {
  private constructor(private readonly children: Child[]) {}

  static async open(wsEndpoint: string, token: string, size: number, processes: number, timeoutMs: number) {
    const n = Math.max(1, Math.min(processes, size));
    const children = Array.from(
      { length: n },
      (_, i) => new Child(wsEndpoint, token, Math.floor(size / n) + (i < size % n ? 1 : 0)),
    );
    await Promise.all(children.map((c) => c.next('ready', timeoutMs)));
    return new Fleet(children);
  }

  async report(phase: string): Promise<PhaseReport> {
    // A child busy with a backlog answers late; its messages queue behind the deliveries.
    const reports = await Promise.all(
      this.children.map((c) => c.next<ChildReport>('report', 300_000, { type: 'report', phase })),
    );
    const histogram = new Map<number, number>();
    for (const r of reports)
      for (const [bucket, n] of r.lags) histogram.set(bucket, (histogram.get(bucket) ?? 0) + n);
    const deliveries = reports.reduce((sum, r) => sum + r.deliveries, 0);
    return {
      deliveries,
      fewest: Math.min(...reports.map((r) => r.fewest)),
      first: Math.min(...reports.map((r) => r.first)),
      last: Math.max(...reports.map((r) => r.last)),
      p50: percentile(histogram, deliveries, 50),
      p99: percentile(histogram, deliveries, 99),
      max: Math.max(...histogram.keys()),
    };
  }

  /**
   * Waits until every subscriber has all `events` of the phase, or until no delivery arrived for
   * `quietMs` (then the shortfall is what was lost).
   */
  async settle(phase: string, events: number, quietMs = 10_000): Promise<PhaseReport> {
    let last = await this.report(phase);
    let quietSince = performance.now();
    while (last.fewest < events && performance.now() - quietSince < quietMs) {
      await new Promise((r) => setTimeout(r, 500));
      const now = await this.report(phase);
      if (now.deliveries !== last.deliveries) quietSince = performance.now();
      last = now;
    }
    return last;
  }

  replay(afterSeq: bigint, expected: number, timeoutMs: number): Promise<{ seconds: number }> {
    return this.children[0]!.next('replayed', timeoutMs, {
      type: 'replay',
      afterSeq: afterSeq.toString(),
      expected,
    });
  }

  close(): void {
    for (const child of this.children) child.kill();
  }
}
