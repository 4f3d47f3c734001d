import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { actorOf, type Principal } from '../../core/auth.js';
import { badInput, conflict } from '../../core/errors.js';
import type { Db } from '../../db/client.js';
import type { Executor, Tx } from '../../db/tx.js';
import { sameSignature, signLink } from './rules/signature.js';
import { approvalLinks, serverSecrets } from './tables.js';

/** How long a link to a call without an approval deadline stays valid. */
export const DEFAULT_LINK_TTL_MS = 24 * 60 * 60_000;
const KEY_NAME = 'approval_link_key';
const TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

export type ApprovalLinkRow = typeof approvalLinks.$inferSelect;

export interface LinkOptions {
  /** LINK_SECRET; without one the server makes a key once and keeps it in the database. */
  secret?: string;
  ttlMs: number;
  now: () => Date;
}

/**
 * One-time signed links to a call. A token is `<link id>.<HMAC of id, call and expiry>`: a forged
 * or altered one fails the signature before anything else is looked at. A link opens nothing by
 * itself: it is used by a signed-in person who may see the call, and counts once.
 */
export class ApprovalLinks {
  private key: Promise<string> | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: LinkOptions,
  ) {}

  /** Loads (or makes) the key before any transaction needs it: a transaction must not wait on the pool. */
  async ready(): Promise<void> {
    await this.signingKey();
  }

  private signingKey(): Promise<string> {
    if (this.options.secret) return Promise.resolve(this.options.secret);
    this.key ??= (async () => {
      // Every process races to insert one; all of them then read the one that won.
      await this.db
        .insert(serverSecrets)
        .values({ name: KEY_NAME, value: randomBytes(32).toString('base64url') })
        .onConflictDoNothing();
      const [row] = await this.db.select().from(serverSecrets).where(eq(serverSecrets.name, KEY_NAME));
      return row!.value;
    })().catch((error) => {
      this.key = null;
      throw error;
    });
    return this.key;
  }

  /** A new link to the call, valid until the call's approval deadline (or the default lifetime). */
  async issue(
    tx: Executor,
    callId: string,
    targetId: string | null,
    callExpiresAt: Date | null,
  ): Promise<{ token: string; expiresAt: Date }> {
    const id = randomUUID();
    const expiresAt = callExpiresAt ?? new Date(this.options.now().getTime() + this.options.ttlMs);
    await tx.insert(approvalLinks).values({ id, callId, targetId, expiresAt });
    return { token: `${id}.${signLink(await this.signingKey(), id, callId, expiresAt)}`, expiresAt };
  }

  /** The link a token names, if its signature holds; BAD_USER_INPUT otherwise (no hint which part is wrong). */
  async verify(executor: Executor, token: string): Promise<ApprovalLinkRow> {
    const invalid = () => badInput('this approval link is not valid', { field: 'link' });
    const match = TOKEN.exec(token);
    if (!match) throw invalid();
    const [row] = await executor.select().from(approvalLinks).where(eq(approvalLinks.id, match[1]!));
    if (!row) throw invalid();
    const expected = signLink(await this.signingKey(), row.id, row.callId, row.expiresAt);
    if (!sameSignature(expected, match[2]!)) throw invalid();
    return row;
  }

  /**
   * The decision hook: runs inside the decision's transaction once the decision counts, so a link
   * is used up only by a decision that was recorded, and a refused link undoes the decision.
   */
  async consume(tx: Tx, callId: string, token: string, principal: Principal): Promise<void> {
    const link = await this.verify(tx, token);
    if (link.callId !== callId) throw badInput('this approval link is for another call', { field: 'link' });
    const now = this.options.now();
    // Like a decision after the call's own expiry (CONFLICT, status EXPIRED): the link's moment has
    // passed, which is a state of the link, not a lack of permission.
    if (link.expiresAt <= now)
      throw conflict('this approval link expired', {
        field: 'link',
        expiresAt: link.expiresAt.toISOString(),
      });
    const [used] = await tx
      .update(approvalLinks)
      .set({ usedAt: now, usedBy: actorOf(principal) })
      .where(and(eq(approvalLinks.id, link.id), isNull(approvalLinks.usedAt)))
      .returning();
    if (!used) throw conflict('this approval link was already used');
  }
}
