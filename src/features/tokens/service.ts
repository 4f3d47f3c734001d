import { createHash, randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { bindingProblem } from '../../core/access.js';
import type { Principal } from '../../core/auth.js';
import { badInput, conflict, notFound } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { Invalidations } from '../../journal/invalidations.js';
import {
  type BindTokenInput,
  bindTokenInputSchema,
  type CreateTokenInput,
  checkBinding,
  createTokenInputSchema,
  rotateTokenInputSchema,
} from './inputs.js';
import { apiTokens } from './tables.js';

export interface TokenLifecycle {
  id: string;
  tokenHash: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
  previousTokenHash: string | null;
  previousValidUntil: Date | null;
}

/** Why a connection authenticated with the secret of this hash must end now, or null while it may go on. */
export function lifecycleEnd(
  state: TokenLifecycle | undefined,
  secretHash: string | undefined,
  now = new Date(),
): string | null {
  if (!state || state.revokedAt) return 'token revoked';
  if (state.expiresAt && state.expiresAt <= now) return 'token expired';
  if (secretHash === undefined || secretHash === state.tokenHash) return null;
  if (secretHash === state.previousTokenHash && state.previousValidUntil && state.previousValidUntil > now)
    return null;
  return 'token secret rotated out';
}

export type ApiTokenRow = typeof apiTokens.$inferSelect;

/**
 * The hash of the secret each principal was authenticated with, so that a connection made with a
 * rotated-out secret can be ended when its overlap does; held weakly, it goes with the principal.
 */
const secretHashes = new WeakMap<Principal, string>();
export const secretHashOf = (principal: Principal): string | undefined => secretHashes.get(principal);

const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');
const newSecret = () => `ats_${randomBytes(32).toString('base64url')}`;

function principalOf(row: ApiTokenRow): Principal {
  return {
    tokenId: row.id,
    name: row.name,
    role: row.role,
    userId: row.userId,
    users: row.allUsers ? ['*'] : row.users,
    profiles: row.profiles,
    planNodes: row.planNodes,
    extensionId: row.extensionId,
    legacyUnbound: row.legacyUnbound,
    idp: null,
  };
}

/** lastUsedAt is kept to the minute: finer would make every request a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A secret that matches a token, or why the token it matches cannot be used now. */
export type Authentication = { principal: Principal } | { refused: string };

const NOT_FOUND = (id: string) => notFound(`no API token ${id}`);

/** How long a token's row is reused for the requests of its secret; a change to it ends that at once. */
export const DEFAULT_TOKEN_CACHE_MS = 5_000;

export class TokenService {
  /** The row each recently used secret matched, until `until` (ms); only rows found, never a miss. */
  private readonly byHash = new Map<string, { row: ApiTokenRow; until: number }>();
  private generation = 0;

  constructor(
    private readonly db: Db,
    /** Revoking, rotating or rebinding a token tells every process to drop the rows it keeps. */
    private readonly changes: Invalidations,
    private readonly logger?: Logger,
    private readonly cacheMs = DEFAULT_TOKEN_CACHE_MS,
  ) {
    changes.on('tokens', () => {
      this.generation += 1;
      this.byHash.clear();
    });
  }

  /** Returns the secret once; only its hash is stored. */
  async create(raw: CreateTokenInput | unknown): Promise<{ secret: string; token: ApiTokenRow }> {
    const input = parseInput(createTokenInputSchema, raw);
    const secret = newSecret();
    const [token] = await this.db
      .insert(apiTokens)
      .values({
        name: input.name,
        role: input.role,
        tokenHash: hashSecret(secret),
        userId: input.userId ?? null,
        users: input.users ?? [],
        allUsers: input.allUsers ?? false,
        profiles: input.profiles ?? [],
        planNodes: input.planNodes ?? null,
        extensionId: input.extensionId ?? null,
        expiresAt: input.expiresAt ?? null,
      })
      .returning();
    return { secret, token: token! };
  }

  /**
   * The principal a secret stands for. A rotated token's previous secret works until its overlap
   * ends; an expired, revoked or unbound token is refused with the reason, never silently.
   */
  async authenticate(secret: string, now = new Date()): Promise<Authentication | null> {
    const hash = hashSecret(secret);
    const row = await this.rowOf(hash, now);
    if (!row) return null;
    if (row.revokedAt) return { refused: 'this token was revoked' };
    if (row.expiresAt && row.expiresAt <= now)
      return { refused: `this token expired at ${row.expiresAt.toISOString()}` };
    if (row.tokenHash !== hash && (!row.previousValidUntil || row.previousValidUntil <= now))
      return { refused: 'this secret was replaced when the token was rotated' };
    const principal = principalOf(row);
    const problem = bindingProblem(principal);
    if (problem)
      return { refused: `${problem}: an admin must bind it (token bind) or mark it legacy-unbound` };
    secretHashes.set(principal, hash);
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      void this.touch(row.id);
      const kept = this.byHash.get(hash);
      if (kept?.row === row) kept.row = { ...row, lastUsedAt: now };
    }
    return { principal };
  }

  /**
   * The row this secret hash matches: the one kept for it while fresh, else read (and kept, unless
   * a change was heard while it was read, or one this process made is not yet back). What a row
   * says (revoked, expiry, the previous secret's overlap) is judged on every use, at `now`.
   */
  private async rowOf(hash: string, now: Date): Promise<ApiTokenRow | undefined> {
    const unsettled = this.changes.unsettled('tokens');
    const kept = this.byHash.get(hash);
    if (kept && now.getTime() < kept.until && !unsettled) return kept.row;
    if (kept) this.byHash.delete(hash);
    const generation = this.generation;
    const [row] = await this.db
      .select()
      .from(apiTokens)
      .where(or(eq(apiTokens.tokenHash, hash), eq(apiTokens.previousTokenHash, hash)))
      .limit(1);
    if (row && this.cacheMs > 0 && !unsettled && generation === this.generation)
      this.byHash.set(hash, { row, until: now.getTime() + this.cacheMs });
    return row;
  }

  /**
   * Records a use at most once a minute per token, so that authenticating stays a read. Not awaited
   * by the request: a failure here must not refuse a valid token, so it is only logged.
   */
  private async touch(id: string): Promise<void> {
    try {
      await this.db
        .update(apiTokens)
        .set({ lastUsedAt: sql`now()` })
        .where(
          and(
            eq(apiTokens.id, id),
            or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`)),
          ),
        );
    } catch (error) {
      this.logger?.warn({ err: error, tokenId: id }, 'recording when a token was last used failed');
    }
  }

  /** One query for any number of tokens: what decides whether their connections may go on; undefined for a token no longer stored. */
  async lifecycleOf(ids: readonly string[]): Promise<Map<string, TokenLifecycle | undefined>> {
    const unique = [...new Set(ids)].filter((id) => z.uuid().safeParse(id).success);
    const states = new Map<string, TokenLifecycle | undefined>(unique.map((id) => [id, undefined]));
    if (unique.length === 0) return states;
    const rows = await this.db
      .select({
        id: apiTokens.id,
        tokenHash: apiTokens.tokenHash,
        revokedAt: apiTokens.revokedAt,
        expiresAt: apiTokens.expiresAt,
        previousTokenHash: apiTokens.previousTokenHash,
        previousValidUntil: apiTokens.previousValidUntil,
      })
      .from(apiTokens)
      .where(inArray(apiTokens.id, unique));
    for (const row of rows) states.set(row.id, row);
    return states;
  }

  async revoke(id: string): Promise<boolean> {
    const row = await this.existing(id);
    if (!row.revokedAt)
      await this.changes.transaction(async (tx) => {
        await tx.update(apiTokens).set({ revokedAt: new Date() }).where(eq(apiTokens.id, id));
        await this.changes.notify(tx, 'tokens');
      });
    return true;
  }

  /**
   * Rebinds a token under the rules of creation. Binding it (any binding field given) clears
   * legacyUnbound unless the input sets it; granting allUsers drops named users and vice versa.
   */
  async bind(id: string, raw: BindTokenInput | unknown): Promise<ApiTokenRow> {
    const input = parseInput(bindTokenInputSchema, raw);
    const row = await this.existing(id);
    if (row.revokedAt) throw conflict(`API token ${id} is revoked; create a new one`);
    const given = <K extends keyof typeof input>(key: K) => input[key] !== undefined;
    const binds = (['userId', 'users', 'allUsers', 'profiles', 'planNodes'] as const).some(given);
    const next = {
      userId: given('userId') ? (input.userId ?? null) : row.userId,
      users: given('users') ? (input.users ?? []) : given('allUsers') && input.allUsers ? [] : row.users,
      allUsers: given('allUsers') ? (input.allUsers ?? false) : input.users?.length ? false : row.allUsers,
      profiles: given('profiles') ? (input.profiles ?? []) : row.profiles,
      planNodes: given('planNodes') ? (input.planNodes ?? null) : row.planNodes,
      legacyUnbound: input.legacyUnbound ?? (binds ? false : row.legacyUnbound),
    };
    const problems: string[] = [];
    checkBinding({ ...next, role: row.role, extensionId: row.extensionId }, (path, message) =>
      problems.push(`input.${path}: ${message}`),
    );
    if (problems.length > 0) throw badInput(problems.join('; '));
    return this.changes.transaction(async (tx) => {
      const [updated] = await tx.update(apiTokens).set(next).where(eq(apiTokens.id, id)).returning();
      await this.changes.notify(tx, 'tokens');
      return updated!;
    });
  }

  /**
   * A new secret for the same token id (same bindings, same journal actor). The previous secret
   * keeps working for `overlapSeconds`, so that the holder can switch without a gap; a secret
   * rotated out before that is refused at once.
   */
  async rotate(
    id: string,
    raw: z.input<typeof rotateTokenInputSchema> | unknown = {},
    now = new Date(),
  ): Promise<{ secret: string; token: ApiTokenRow }> {
    const { overlapSeconds } = parseInput(rotateTokenInputSchema, raw ?? {});
    const row = await this.existing(id);
    if (row.revokedAt) throw conflict(`API token ${id} is revoked; create a new one`);
    if (row.expiresAt && row.expiresAt <= now)
      throw conflict(`API token ${id} has expired; create a new one`);
    const secret = newSecret();
    return this.changes.transaction(async (tx) => {
      const [updated] = await tx
        .update(apiTokens)
        .set({
          tokenHash: hashSecret(secret),
          previousTokenHash: row.tokenHash,
          previousValidUntil: new Date(now.getTime() + overlapSeconds * 1000),
          rotatedAt: now,
        })
        .where(eq(apiTokens.id, id))
        .returning();
      await this.changes.notify(tx, 'tokens');
      return { secret, token: updated! };
    });
  }

  private async existing(id: string): Promise<ApiTokenRow> {
    if (!z.uuid().safeParse(id).success) throw NOT_FOUND(id);
    const row = await this.get(id);
    if (!row) throw NOT_FOUND(id);
    return row;
  }

  async get(id: string): Promise<ApiTokenRow | null> {
    if (!z.uuid().safeParse(id).success) return null;
    const [row] = await this.db.select().from(apiTokens).where(eq(apiTokens.id, id)).limit(1);
    return row ?? null;
  }

  list(): Promise<ApiTokenRow[]> {
    return this.db.select().from(apiTokens).orderBy(apiTokens.createdAt);
  }

  /** ADMIN_TOKEN from the environment: after this, exactly that secret works as an admin token. */
  async ensureAdminToken(secret: string): Promise<void> {
    const tokenHash = hashSecret(secret);
    await this.changes.transaction(async (tx) => {
      await tx
        .insert(apiTokens)
        .values({ name: 'ADMIN_TOKEN', role: 'ADMIN', tokenHash })
        .onConflictDoUpdate({ target: apiTokens.tokenHash, set: { role: 'ADMIN', revokedAt: null } });
      await this.changes.notify(tx, 'tokens');
    });
  }

  /** On a fresh database with no usable admin token, mint one so the operator can get in. */
  async bootstrapAdmin(): Promise<string | null> {
    const [existing] = await this.db
      .select({ id: apiTokens.id })
      .from(apiTokens)
      .where(and(eq(apiTokens.role, 'ADMIN'), isNull(apiTokens.revokedAt)))
      .limit(1);
    if (existing) return null;
    const { secret } = await this.create({ name: 'bootstrap-admin', role: 'ADMIN' });
    return secret;
  }
}
