import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Held } from './calls.js';

/**
 * How a held call reports progress: `notifications/progress` on the host's request, numbered from
 * 1, when the request carried a progressToken; nothing otherwise. A notification that cannot be sent
 * (the host went away) is dropped: the hold ends through the request's signal, not through this.
 */
export function progressOf(
  progressToken: string | number | undefined,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Pick<Held, 'progress'> {
  if (progressToken === undefined) return {};
  let progress = 0;
  return {
    progress: (message: string) =>
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: ++progress, message },
        })
        .catch(() => {}),
  };
}
