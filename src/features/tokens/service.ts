import { createHash, randomBytes } from 'node:crypto';
import { and, eq, inArray, isNotNull, isNull, or } from 'drizzle-orm';
import { z } from 'zod';
import { BINDING_PATTERN, bindingProblem } from '../../core/access.js';
import { type Principal, roles } from '../../core/auth.js';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import { apiTokens } from './tables.js';

const pattern = z
  .string()
  .regex(BINDING_PATTERN, 'must be an id or glob of A-Z a-z 0-9 _ . @ : - * ? (at most 200 characters)');
const patterns = z.array(pattern).max(100);

export const createTokenInputSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: z.enum(roles),
    userId: z.string().trim().min(1).max(200).regex(BINDING_PATTERN).nullish(),
    users: patterns.nullish(),
    allUsers: z.boolean().nullish(),
    profiles: patterns.nullish(),
    planNodes: patterns.nullish(),
    extensionId: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,63}$/,
        'must be 1-64 characters of a-z 0-9 _ - starting with a letter or digit',
      )
      .nullish(),
    expiresAt: z.date().nullish(),
  })
  .superRefine((input, ctx) => {
    const problem = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message });
    const person = input.role === 'APPROVER' || input.role === 'VIEWER';
    if (input.role === 'EXTENSION' && !input.extensionId)
      problem('extensionId', 'an EXTENSION token must name its extension');
    if (input.role !== 'EXTENSION' && input.extensionId)
      problem('extensionId', 'only EXTENSION tokens name an extension');
    if (input.role === 'AGENT' && (!input.userId || input.userId.includes('*') || input.userId.includes('?')))
      problem('userId', 'an AGENT token must name the one user its runs act for');
    if (input.role !== 'AGENT' && input.userId)
      problem('userId', 'only AGENT tokens act for one user; APPROVER and VIEWER tokens name `users`');
    if (input.role !== 'AGENT' && (input.profiles || input.planNodes))
      problem('profiles', 'only AGENT tokens are bound to profiles and plan nodes');
    if (!person && (input.users || input.allUsers))
      problem('users', 'only APPROVER and VIEWER tokens are bound to users');
    if (input.users?.includes('*'))
      problem('users', 'grant every user with allUsers: true, not the pattern `*`');
    if (person && !input.allUsers && !input.users?.length)
      problem(
        'users',
        `${input.role === 'APPROVER' ? 'an' : 'a'} ${input.role} token must name the users it is for (or allUsers: true)`,
      );
    if (input.allUsers && input.users?.length) problem('users', 'allUsers: true names no users besides');
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now())
      problem('expiresAt', 'must be in the future');
  });
export type CreateTokenInput = z.input<typeof createTokenInputSchema>;

export type ApiTokenRow = typeof apiTokens.$inferSelect;

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
  };
}

/** A secret that matches a token, or why the token it matches cannot be used now. */
export type Authentication = { principal: Principal } | { refused: string };

export class TokenService {
  constructor(private readonly db: Db) {}

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
    const [row] = await this.db
      .select()
      .from(apiTokens)
      .where(or(eq(apiTokens.tokenHash, hash), eq(apiTokens.previousTokenHash, hash)))
      .limit(1);
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
    return { principal };
  }

  /** Which of these tokens have been revoked, for holders of long-lived connections. */
  async revokedAmong(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .select({ id: apiTokens.id })
      .from(apiTokens)
      .where(and(inArray(apiTokens.id, [...new Set(ids)]), isNotNull(apiTokens.revokedAt)));
    return new Set(rows.map((row) => row.id));
  }

  async revoke(id: string): Promise<boolean> {
    if (!z.uuid().safeParse(id).success) throw notFound(`no API token ${id}`);
    const [row] = await this.db.select().from(apiTokens).where(eq(apiTokens.id, id)).limit(1);
    if (!row) throw notFound(`no API token ${id}`);
    if (!row.revokedAt)
      await this.db.update(apiTokens).set({ revokedAt: new Date() }).where(eq(apiTokens.id, id));
    return true;
  }

  async get(id: string): Promise<ApiTokenRow | null> {
    const [row] = await this.db.select().from(apiTokens).where(eq(apiTokens.id, id)).limit(1);
    return row ?? null;
  }

  list(): Promise<ApiTokenRow[]> {
    return this.db.select().from(apiTokens).orderBy(apiTokens.createdAt);
  }

  /** ADMIN_TOKEN from the environment: after this, exactly that secret works as an admin token. */
  async ensureAdminToken(secret: string): Promise<void> {
    const tokenHash = hashSecret(secret);
    await this.db
      .insert(apiTokens)
      .values({ name: 'ADMIN_TOKEN', role: 'ADMIN', tokenHash })
      .onConflictDoUpdate({ target: apiTokens.tokenHash, set: { role: 'ADMIN', revokedAt: null } });
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
