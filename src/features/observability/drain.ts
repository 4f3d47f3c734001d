import type { Logger } from '../../core/logger.js';

export interface Drainable {
  /** Stops claiming work; resolves true once every running call landed, false at the limit. */
  drainCalls(ms: number): Promise<boolean>;
  /** Expires the leases of calls still running here so another process recovers them at once. */
  releaseLeases(): Promise<number>;
  /** Ends every open subscription, telling each client why. */
  closeSubscriptions(reason: string): Promise<void>;
  /** Everything else: the listener, the services, the database. */
  close(): Promise<void>;
}

export const SHUTDOWN_REASON = 'server shutting down';

/**
 * SIGTERM: refuse new work (requests get 503 and readiness turns false the moment this starts),
 * end subscriptions with a reason, let running calls finish within the limit and release the
 * leases of those that do not, then close. The caller exits when this resolves.
 */
export class Drain {
  private started = false;

  get draining(): boolean {
    return this.started;
  }

  async run(target: Drainable, limitMs: number, logger: Logger): Promise<void> {
    if (this.started) return;
    this.started = true;
    const began = Date.now();
    logger.info({ limitMs }, 'draining');
    await target.closeSubscriptions(SHUTDOWN_REASON);
    const finished = await target.drainCalls(limitMs);
    const released = finished ? 0 : await target.releaseLeases();
    await target.close();
    logger.info({ released, durationMs: Date.now() - began }, 'drained');
  }
}
