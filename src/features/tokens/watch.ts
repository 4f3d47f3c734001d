import type { Principal } from '../../core/auth.js';
import type { Logger } from '../../core/logger.js';
import { lifecycleEnd, secretHashOf, type TokenService } from './service.js';

/** A long-lived holder of a token: an open subscription or an authenticated socket. */
interface Holder {
  secretHash: string | undefined;
  end(reason: string): void;
}

/** What an IdP token opened: it has no row to re-read, it ends at the token's `exp`. */
interface ExpiringHolder {
  expiresAt: Date;
  end(reason: string): void;
}

export const DEFAULT_TOKEN_CHECK_INTERVAL_MS = 2_000;

/**
 * One per process. A token is checked when a request or connection starts; what stays open after
 * that (subscriptions, sockets) is held here by token id, and every interval one query for all the
 * held tokens finds those revoked, expired or whose secret was rotated out, wherever that happened,
 * and ends their holders with the reason. What an IdP token opened ends, on the same interval, when
 * that token expires: the IdP is asked for a new token, never this server.
 */
export class TokenWatch {
  private readonly held = new Map<string, Set<Holder>>();
  private readonly expiring = new Set<ExpiringHolder>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly tokens: Pick<TokenService, 'lifecycleOf'>,
    private readonly logger: Logger,
    private readonly intervalMs = DEFAULT_TOKEN_CHECK_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** How many holders are open, over every token. */
  get size(): number {
    let n = this.expiring.size;
    for (const set of this.held.values()) n += set.size;
    return n;
  }

  /**
   * Calls `end` once, with the reason, when the principal's token can no longer be used. Returns the
   * release to call when the holder ends on its own; after `end` the holder is already released.
   */
  hold(principal: Principal, end: (reason: string) => void): () => void {
    if (principal.idp) return this.holdUntil(principal.idp.expiresAt, end);
    const tokenId = principal.tokenId;
    const set = this.held.get(tokenId) ?? new Set<Holder>();
    this.held.set(tokenId, set);
    const release = () => {
      set.delete(holder);
      if (set.size === 0 && this.held.get(tokenId) === set) this.held.delete(tokenId);
    };
    const holder: Holder = {
      secretHash: secretHashOf(principal),
      end: (reason) => {
        release();
        end(reason);
      },
    };
    set.add(holder);
    return release;
  }

  private holdUntil(expiresAt: Date, end: (reason: string) => void): () => void {
    const release = () => {
      this.expiring.delete(holder);
    };
    const holder: ExpiringHolder = {
      expiresAt,
      end: (reason) => {
        release();
        end(reason);
      },
    };
    this.expiring.add(holder);
    return release;
  }

  /** One pass: the IdP tokens that expired, then one query for every held token and the holders that must end. */
  async check(now = new Date()): Promise<void> {
    for (const holder of [...this.expiring])
      if (holder.expiresAt <= now) this.endHolder(holder, 'token expired', 'idp');
    if (this.checking || this.held.size === 0) return;
    this.checking = true;
    try {
      const states = await this.tokens.lifecycleOf([...this.held.keys()]);
      for (const [tokenId, set] of [...this.held]) {
        for (const holder of [...set]) {
          const reason = lifecycleEnd(states.get(tokenId), holder.secretHash, now);
          if (reason !== null) this.endHolder(holder, reason, tokenId);
        }
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'checking held tokens failed; the next interval retries');
    } finally {
      this.checking = false;
    }
  }

  private endHolder(holder: { end(reason: string): void }, reason: string, tokenId: string): void {
    try {
      holder.end(reason);
    } catch (error) {
      this.logger.warn({ err: error, tokenId }, 'ending a connection of an unusable token failed');
    }
  }
}
