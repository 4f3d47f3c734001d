import { createHash, randomBytes } from 'node:crypto';
import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { type Principal, roles } from '../../core/auth.js';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import { apiTokens } from './tables.js';

export const createTokenInputSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: z.enum(roles),
    userId: z.string().trim().min(1).max(200).nullish(),
    extensionId: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,63}$/,
        'must be 1-64 characters of a-z 0-9 _ - starting with a letter or digit',
      )
      .nullish(),
  })
  .superRefine((input, ctx) => {
    if (input.role === 'EXTENSION' && !input.extensionId) {
      ctx.addIssue({
        code: 'custom',
        path: ['extensionId'],
        message: 'an EXTENSION token must name its extension',
      });
    }
    if (input.role !== 'EXTENSION' && input.extensionId) {
      ctx.addIssue({
        code: 'custom',
        path: ['extensionId'],
        message: 'only EXTENSION tokens name an extension',
      });
    }
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
    extensionId: row.extensionId,
  };
}

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
        extensionId: input.extensionId ?? null,
      })
      .returning();
    return { secret, token: token! };
  }

  async authenticate(secret: string): Promise<Principal | null> {
    const [row] = await this.db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.tokenHash, hashSecret(secret)), isNull(apiTokens.revokedAt)))
      .limit(1);
    return row ? principalOf(row) : null;
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
