import { randomUUID } from 'node:crypto';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import type { McpConnectionManager } from '../../bridge/mcp/index.js';
import type { Logger } from '../../core/logger.js';
import type { Database } from '../../db/client.js';

export const HOST_NOTICE_CHANNEL = 'ats_host_notice';
/** A NOTIFY payload is at most 8000 bytes; a notice that does not fit (a host's absurdly long request id) stays on its process. */
const MAX_PAYLOAD = 7_000;

/** A host's notification for what another request of its session started, as it travels between processes. */
interface Notice {
  origin: string;
  session: string;
  server: string;
  kind: 'cancelled' | 'roots';
  requestId?: RequestId;
}

const keyOf = (session: string, requestId: RequestId) => JSON.stringify([session, requestId]);

/**
 * The host's notifications about what other requests of its session started on `/mcp/<server>`,
 * which the gateway serves with a fresh SDK server per request, on any process:
 *
 * - `notifications/cancelled` names a tools/call that may be open on another process: every
 *   process aborts its open request of that session and id (`track`), which cancels the call's
 *   upstream request through the relay, or ends the hold of a call waiting for a person;
 * - `notifications/roots/list_changed` goes to every upstream relay session of the host session,
 *   on every process.
 *
 * A notice is acted on here at once and sent to the others with a `NOTIFY ats_host_notice` (the
 * `ats_host_answer` pattern); a process whose LISTEN is down meanwhile misses it.
 */
export class HostNotices {
  private readonly origin = randomUUID();
  private readonly open = new Map<string, AbortController>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly database: Database,
    private readonly connections: McpConnectionManager,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.database.listen(HOST_NOTICE_CHANNEL, {
      onNotify: (payload) => {
        let notice: Notice;
        try {
          notice = JSON.parse(payload) as Notice;
        } catch {
          return;
        }
        if (notice.origin !== this.origin) void this.act(notice);
      },
    });
  }

  async stop(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.();
  }

  /** A tools/call of `session` open here until `done`: `signal` aborts when the host cancels it. */
  track(session: string, requestId: RequestId): { signal: AbortSignal; done: () => void } {
    const key = keyOf(session, requestId);
    const controller = new AbortController();
    this.open.set(key, controller);
    return {
      signal: controller.signal,
      done: () => {
        if (this.open.get(key) === controller) this.open.delete(key);
      },
    };
  }

  /** The host cancelled its request `requestId` of `session`. */
  cancelled(session: string, server: string, requestId: RequestId): Promise<void> {
    return this.publish({ origin: this.origin, session, server, kind: 'cancelled', requestId });
  }

  /** The host's roots changed. */
  rootsChanged(session: string, server: string): Promise<void> {
    return this.publish({ origin: this.origin, session, server, kind: 'roots' });
  }

  private async publish(notice: Notice): Promise<void> {
    await this.act(notice);
    const payload = JSON.stringify(notice);
    if (payload.length > MAX_PAYLOAD) return;
    await this.database.db
      .execute(sql`select pg_notify(${HOST_NOTICE_CHANNEL}, ${payload})`)
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, kind: notice.kind },
          'a host notification could not reach the other processes',
        ),
      );
  }

  private async act(notice: Notice): Promise<void> {
    if (notice.kind === 'cancelled' && notice.requestId !== undefined) {
      this.open.get(keyOf(notice.session, notice.requestId))?.abort('the host cancelled the request');
      return;
    }
    await this.connections
      .connection(notice.server)
      ?.notifyRelaySessions(notice.session, { method: 'notifications/roots/list_changed' });
  }
}
