import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RelayedProgress } from '../../bridge/mcp/index.js';
import type { Held } from './calls.js';

/** What progress needs of a host request: the SDK's handler extra, or the direct answer's stream (direct-answer.ts). */
export type HostNotifier = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'sendNotification'>;

/**
 * The `notifications/progress` of one host request that carried a progressToken: the gateway's
 * own while the call waits for a person (numbered from 1), and on /mcp/<server> the upstream's,
 * relayed under the host's token. The spec wants each progress value above the last, so a relayed
 * value that is not (an upstream counting from 0 after the waiting notifications) is left out, and
 * the waiting ones stop once the upstream reports. A notification that cannot be sent (the host went
 * away) is dropped: the hold ends through the request's signal, not through this.
 */
export class HostProgress {
  private last: number | null = null;
  private upstreamReported = false;

  constructor(
    private readonly progressToken: string | number,
    private readonly extra: HostNotifier,
  ) {}

  waiting(message: string): void {
    if (this.upstreamReported) return;
    this.send({ progress: this.last === null ? 1 : Math.floor(this.last) + 1, message });
  }

  relay(progress: RelayedProgress): void {
    if (this.last !== null && progress.progress <= this.last) return;
    this.upstreamReported = true;
    this.send(progress);
  }

  private send(progress: RelayedProgress) {
    this.last = progress.progress;
    void this.extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: this.progressToken, ...progress },
      })
      .catch(() => {});
  }
}

/** A held call's waiting notifications, when the request carried a progressToken; nothing otherwise. */
export function progressOf(
  progressToken: string | number | undefined,
  extra: HostNotifier,
): Pick<Held, 'progress'> {
  if (progressToken === undefined) return {};
  const progress = new HostProgress(progressToken, extra);
  return { progress: (message: string) => progress.waiting(message) };
}
