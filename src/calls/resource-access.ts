import { and, eq, like, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { coversUser, likePattern, userScopeOf } from '../core/access.js';
import type { Principal } from '../core/auth.js';
import type { Executor, Tx } from '../db/tx.js';
import { runs } from './tables.js';

/**
 * Workspaces and chats belong to users (issue 12). The lifecycle checks a run's resources when it
 * is created without knowing the features that keep them: they implement this port, and the
 * composition root (app/services.ts) hands it to the run service.
 */
export interface ResourceOwnership {
  /**
   * The workspace's owner, in the caller's transaction. A workspace that does not exist yet is
   * created owned by `userId` (`created`), so that it belongs to the run that first names it.
   */
  claimWorkspace(
    tx: Tx,
    workspaceId: string,
    userId: string | null,
  ): Promise<{ ownerUserId: string | null; created: boolean }>;
  /** The chat's owner; null when there is no such chat. */
  chatOwner(tx: Tx, chatId: string): Promise<{ ownerUserId: string | null } | null>;
}

/** A user a resource is given to: an id as tokens bind them, without glob characters. */
export const ownerUserIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.@:-]{1,200}$/, 'a user id: 1-200 letters, digits or _ . @ : -')
  .nullable();

/** The run column that names a resource of each kind. */
const namingColumn = { chat: runs.chatId, workspace: runs.workspaceId } as const;
export type ResourceKind = keyof typeof namingColumn;

/** Agents are held to their runs' resources; a token an admin marked legacy-unbound reads as it always did. */
const heldToRuns = (principal: Principal) => principal.role === 'AGENT' && !principal.legacyUnbound;

/**
 * Whether a principal may read a resource with this owner, leaving aside the runs an agent must
 * have named it in (see `namingRuns`): admins and hosts read all, people what their user scope
 * covers, agents what belongs to their user, extensions nothing.
 */
export function mayReadOwned(principal: Principal, ownerUserId: string | null): boolean {
  if (principal.role === 'EXTENSION') return false;
  if (heldToRuns(principal)) return ownerUserId !== null && ownerUserId === principal.userId;
  return coversUser(principal, ownerUserId);
}

/**
 * The runs through which an agent reads a resource: those its token created that name it. Their
 * profiles decide which workspace files it sees. Empty for anyone else: they do not read through runs.
 */
export async function namingRuns(
  db: Executor,
  principal: Principal,
  kind: ResourceKind,
  id: string,
): Promise<Array<{ profileId: string | null }>> {
  if (!heldToRuns(principal)) return [];
  return db
    .selectDistinct({ profileId: runs.profileId })
    .from(runs)
    .where(and(eq(runs.createdByToken, principal.tokenId), eq(namingColumn[kind], id)));
}

/**
 * `mayReadOwned` and, for agents, `namingRuns` as one SQL condition over a list's id and owner
 * columns; undefined when the principal reads every resource.
 */
export function ownedScope(
  principal: Principal,
  kind: ResourceKind,
  columns: { id: PgColumn; owner: PgColumn },
): SQL | undefined {
  if (principal.role === 'EXTENSION') return sql`false`;
  if (heldToRuns(principal)) {
    if (!principal.userId) return sql`false`;
    const named = namingColumn[kind];
    return and(
      eq(columns.owner, principal.userId),
      sql`${columns.id} in (select ${named} from ${runs} where ${runs.createdByToken} = ${principal.tokenId})`,
    );
  }
  const scope = userScopeOf(principal);
  if (scope.all) return undefined;
  if (scope.patterns.length === 0) return sql`false`;
  return or(...scope.patterns.map((p) => like(columns.owner, likePattern(p))));
}

/**
 * Whether a principal reads this resource: null when not; else, for agents, the profiles of the
 * runs it reads it through (which narrow a workspace's files), and null profiles for everyone else.
 */
export async function readAccess(
  db: Executor,
  principal: Principal,
  kind: ResourceKind,
  resource: { id: string; ownerUserId: string | null },
): Promise<{ profiles: Array<string | null> | null } | null> {
  if (!mayReadOwned(principal, resource.ownerUserId)) return null;
  if (!heldToRuns(principal)) return { profiles: null };
  const through = await namingRuns(db, principal, kind, resource.id);
  return through.length === 0 ? null : { profiles: through.map((r) => r.profileId) };
}
