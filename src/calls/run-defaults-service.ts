import { asc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { BINDING_PATTERN } from '../core/access.js';
import { notFound } from '../core/errors.js';
import { parseInput } from '../core/parse-input.js';
import { deniedToolStrategies } from '../core/run.js';
import type { Db } from '../db/client.js';
import type { Executor } from '../db/tx.js';
import type { ConfiguredRunLimits } from './rules/run-limits.js';
import { type ProfileRunDefaultsRow, profileRunDefaults } from './tables.js';

/** The row every profile without its own row falls back to. */
export const ANY_PROFILE = '*';

// A profile id as runs name it, or `*`; globs are not rows (which of two matching globs would win?).
const profileId = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((id) => id === ANY_PROFILE || (BINDING_PATTERN.test(id) && !/[*?]/.test(id)), {
    message: 'a profile id (letters, digits, _ . @ : -) or * for every profile without its own defaults',
  });

export const profileRunDefaultsInputSchema = z.object({
  profileId,
  deniedToolStrategy: z.enum(deniedToolStrategies).nullish(),
  maxCalls: z.number().int().positive().nullish(),
  maxCallsPerTool: z.number().int().positive().nullish(),
});

/**
 * Run defaults admins set per profile: the limits a run gets when its creator names none, and,
 * for agents, the loosest limits it may ask for (see rules/run-limits.ts).
 */
export class ProfileRunDefaultsService {
  constructor(private readonly db: Db) {}

  list(): Promise<ProfileRunDefaultsRow[]> {
    return this.db.select().from(profileRunDefaults).orderBy(asc(profileRunDefaults.profileId));
  }

  /** Replaces the profile's defaults as a whole: a field left out configures nothing. */
  async set(raw: unknown, actor: string): Promise<ProfileRunDefaultsRow> {
    const input = parseInput(profileRunDefaultsInputSchema, raw);
    const values = {
      deniedToolStrategy: input.deniedToolStrategy ?? null,
      maxCalls: input.maxCalls ?? null,
      maxCallsPerTool: input.maxCallsPerTool ?? null,
      updatedBy: actor,
      updatedAt: new Date(),
    };
    const [row] = await this.db
      .insert(profileRunDefaults)
      .values({ profileId: input.profileId, ...values })
      .onConflictDoUpdate({ target: profileRunDefaults.profileId, set: values })
      .returning();
    return row!;
  }

  async remove(id: string): Promise<boolean> {
    const removed = await this.db
      .delete(profileRunDefaults)
      .where(eq(profileRunDefaults.profileId, id))
      .returning({ profileId: profileRunDefaults.profileId });
    if (removed.length === 0) throw notFound(`profile ${id} has no run defaults`);
    return true;
  }

  /** What applies to a run of this profile (null: a run without a profile): its own row, else `*`'s. */
  async forProfile(executor: Executor, id: string | null): Promise<ConfiguredRunLimits | null> {
    const ids = id === null || id === ANY_PROFILE ? [ANY_PROFILE] : [id, ANY_PROFILE];
    const rows = await executor
      .select()
      .from(profileRunDefaults)
      .where(inArray(profileRunDefaults.profileId, ids));
    const row = rows.find((r) => r.profileId === id) ?? rows.find((r) => r.profileId === ANY_PROFILE);
    if (!row) return null;
    return {
      profileId: row.profileId,
      deniedToolStrategy: row.deniedToolStrategy,
      maxCalls: row.maxCalls,
      maxCallsPerTool: row.maxCallsPerTool,
    };
  }
}
