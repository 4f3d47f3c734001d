import { ChildJobs } from '../support/child-jobs.js';
import type { ClientJob } from './client-process.js';
import type { Timing } from './measure.js';

/**
 * The parent's handle on the benchmark's client process (client-process.ts): each phase is one
 * message, and the child answers with the phase's timing as its own clock measured it.
 */
export class BenchClient {
  private constructor(private readonly jobs: ChildJobs<ClientJob>) {}

  static async open(endpoint: string, agentSecret: string, approverSecret: string): Promise<BenchClient> {
    const url = new URL('./client-process.ts', import.meta.url);
    return new BenchClient(
      await ChildJobs.open(url, [endpoint, agentSecret, approverSecret], 'bench client'),
    );
  }

  /** New runs of the agent; followed ones get a journalEvents subscription in the client. */
  runs(n: number, follow = true): Promise<string[]> {
    return this.jobs.send({ type: 'runs', n, follow });
  }

  /** `n` auto-approved calls on `workers` workers, worker w on runIds[w % runIds.length]. */
  auto(n: number, workers: number, runIds: string[]): Promise<Timing> {
    return this.jobs.send({ type: 'auto', n, workers, runIds });
  }

  /** `n` approved round trips; every run must be a followed one. */
  approved(n: number, workers: number, runIds: string[]): Promise<Timing> {
    return this.jobs.send({ type: 'approved', n, workers, runIds });
  }

  /** Ends every journal subscription the client holds (idle ones cost the database token checks). */
  unfollow(): Promise<void> {
    return this.jobs.send({ type: 'unfollow' });
  }

  close(): void {
    this.jobs.close();
  }
}
