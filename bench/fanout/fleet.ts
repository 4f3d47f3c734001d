import { type ChildProcess, fork } from 'node:child_process';

export interface PhaseReport {
  deliveries: number;
  /** Events the least served subscriber got: every subscriber should get them all. */
  fewest: number;
  /** From the first arrival to the last, at any subscriber. */
  seconds: number;
  first: number;
  last: number;
  p50: number;
  p99: number;
  max: number;
}

/** The parent's handle on the subscribers' child process (subscribers.ts). */
export class Fleet {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<string, (m: never) => void>();

  private constructor(
    endpoint: string,
    token: string,
    readonly size: number,
  ) {
    this.child = fork(
      new URL('./subscribers.ts', import.meta.url).pathname,
      [endpoint, token, String(size)],
      {
        execArgv: ['--import', 'tsx'],
      },
    );
    this.child.on('message', (m: { type: string; message?: string }) => {
      if (m.type === 'error') process.stderr.write(`subscriber error: ${m.message}\n`);
      this.waiting.get(m.type)?.(m as never);
    });
  }

  static async open(wsEndpoint: string, token: string, size: number, timeoutMs: number): Promise<Fleet> {
    const fleet = new Fleet(wsEndpoint, token, size);
    await fleet.next('ready', timeoutMs);
    return fleet;
  }

  private next<T>(type: string, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
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
  }

  async report(phase: string): Promise<PhaseReport> {
    const answer = this.next<PhaseReport>('report', 30_000);
    this.child.send({ type: 'report', phase });
    return answer;
  }

  /**
   * Waits until every subscriber has all `events` of the phase, or until no delivery arrived for
   * `quietMs` (then the shortfall is what was lost).
   */
  async settle(phase: string, events: number, quietMs = 10_000): Promise<PhaseReport> {
    let last = await this.report(phase);
    let quietSince = performance.now();
    while (last.fewest < events && performance.now() - quietSince < quietMs) {
      await new Promise((r) => setTimeout(r, 200));
      const now = await this.report(phase);
      if (now.deliveries !== last.deliveries) quietSince = performance.now();
      last = now;
    }
    return last;
  }

  async replay(afterSeq: bigint, expected: number, timeoutMs: number): Promise<{ seconds: number }> {
    const answer = this.next<{ seconds: number }>('replayed', timeoutMs);
    this.child.send({ type: 'replay', afterSeq: afterSeq.toString(), expected });
    return answer;
  }

  close(): void {
    this.child.kill();
  }
}
