import { and, asc, desc, eq, isNotNull, isNull, like, or, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { type PolicyService, type RunService, readableCall } from '../../calls/index.js';
import { type RunRow, runs, type ToolCallRow } from '../../calls/tables.js';
import { coversUser, likePattern, userScopeOf } from '../../core/access.js';
import { actorOf, type Principal } from '../../core/auth.js';
import { badInput, conflict, forbidden, notFound } from '../../core/errors.js';
import {
  type GrantRequest,
  type GrantScope,
  grantFieldsOfPreview,
  grantPreviewInputSchema,
  grantRequestOf,
} from '../../core/grant.js';
import { parseInput } from '../../core/parse-input.js';
import type { PathCanonicaliser } from '../../core/policy-conditions.js';
import { isUuid } from '../../core/uuid.js';
import type { Db } from '../../db/client.js';
import { prebuilt } from '../../db/prebuilt.js';
import type { Executor, Tx } from '../../db/tx.js';
import type { Invalidations } from '../../journal/invalidations.js';
import { type GrantPlan, grantCovers, planGrant } from './rules/grant-plan.js';
import { type GrantRow, grants } from './tables.js';

/** At most this many grants are listed at once, newest first. */
const MAX_LISTED = 500;

const listInputSchema = z.object({
  runId: z.string().nullish(),
  userId: z.string().trim().min(1).max(200).nullish(),
  includeRevoked: z.boolean().nullish(),
});

/**
 * People see the grants of the users they are bound to, and profile grants (as they see every
 * non-USER policy rule); a RUN grant of a run without a user only with an all-users scope.
 */
function maySee(principal: Principal, grant: GrantRow): boolean {
  if (grant.scope === 'ALWAYS' && grant.profileId) return true;
  return coversUser(principal, grant.userId);
}

/** Admins change any grant; an approver those of the users it is bound to, never a profile's. */
function mayChange(
  principal: Principal,
  grant: { userId: string | null; profileId: string | null },
): boolean {
  if (principal.role === 'ADMIN') return true;
  return principal.role === 'APPROVER' && !grant.profileId && coversUser(principal, grant.userId);
}

/**
 * Scoped grants: worked out by the pure plan (the preview and the approval make the same one),
 * saved in the approval's transaction, read under the run's lock when a call is requested, and
 * revoked with the policy rule an ALWAYS grant saved.
 */
/** A run's active RUN grants for one tool, oldest first: what a request of that tool checks. */
const runGrants = prebuilt((db) =>
  db
    .select()
    .from(grants)
    .where(
      and(
        eq(grants.runId, sql.placeholder('runId')),
        eq(grants.toolName, sql.placeholder('name')),
        eq(grants.scope, 'RUN'),
        isNull(grants.revokedAt),
      ),
    )
    .orderBy(asc(grants.createdAt), asc(grants.id)),
);

export class GrantService {
  constructor(
    private readonly db: Db,
    private readonly runs: RunService,
    private readonly policy: PolicyService,
    /** The workspace path rules, for conditions on path arguments. */
    private readonly canonicalPath: PathCanonicaliser,
    /** A revocation answers once every process has heard that the rule it removed is gone. */
    private readonly changes: Invalidations,
  ) {}

  /** What approving `callId` with this scope would grant, exactly as the approval would save it. */
  async preview(callId: string, raw: unknown, principal: Principal): Promise<GrantPlan> {
    const input = parseInput(grantPreviewInputSchema, raw);
    const found = await readableCall(this.db, callId, principal);
    if (!found) throw notFound(`no tool call ${callId}`);
    const { call, run } = found;
    const request = grantRequestOf(grantFieldsOfPreview(input));
    return this.plan(input.scope, call, run, request, principal);
  }

  /** The grant an approval carries, saved in the approval's transaction (an ALWAYS grant with its rule). */
  async create(tx: Tx, call: ToolCallRow, request: GrantRequest, principal: Principal): Promise<GrantRow> {
    const [run] = await tx.select().from(runs).where(eq(runs.id, call.runId)).limit(1);
    const plan = this.plan(request.scope, call, run!, request, principal);
    const rule = plan.rule ? await this.policy.set(plan.rule, principal, tx) : null;
    const [grant] = await tx
      .insert(grants)
      .values({
        scope: request.scope,
        toolName: plan.toolName,
        conditions: plan.conditions,
        runId: plan.runId,
        userId: plan.userId,
        profileId: plan.profileId,
        ruleId: rule?.id ?? null,
        sourceCallId: call.id,
        createdBy: actorOf(principal),
      })
      .returning();
    return grant!;
  }

  /** The oldest active RUN grant of the run that covers this call; read under the run's row lock. */
  async settle(tx: Tx): Promise<void> {
    await this.changes.settle(tx);
  }

  async standing(
    tx: Tx,
    runId: string,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ id: string; createdBy: string } | null> {
    const candidates = await runGrants(tx, { runId, name });
    const found = candidates.find((g) => grantCovers(g, name, args, this.canonicalPath));
    return found ? { id: found.id, createdBy: found.createdBy } : null;
  }

  async list(raw: unknown, principal: Principal): Promise<GrantRow[]> {
    const input = parseInput(listInputSchema, raw);
    const conditions: SQL[] = [];
    if (input.runId) {
      const run = await this.runs.get(input.runId, principal);
      if (!run) throw notFound(`no run ${input.runId}`);
      conditions.push(eq(grants.runId, run.id));
    }
    if (input.userId) {
      if (!coversUser(principal, input.userId))
        throw forbidden(`this token is not bound to user ${input.userId}`);
      conditions.push(eq(grants.userId, input.userId));
    }
    if (!input.includeRevoked) conditions.push(isNull(grants.revokedAt));
    const scope = visibleScope(principal);
    if (scope) conditions.push(scope);
    return this.db
      .select()
      .from(grants)
      .where(and(...conditions))
      .orderBy(desc(grants.createdAt), desc(grants.id))
      .limit(MAX_LISTED);
  }

  async get(id: string, principal: Principal, db: Executor = this.db): Promise<GrantRow | null> {
    if (!isUuid(id)) return null;
    const [grant] = await db.select().from(grants).where(eq(grants.id, id)).limit(1);
    return grant && maySee(principal, grant) ? grant : null;
  }

  /** The next matching call asks again; an ALWAYS grant's policy rule is removed with it. */
  revoke(id: string, principal: Principal): Promise<GrantRow> {
    return this.changes.transaction(async (tx) => {
      const grant = await this.get(id, principal, tx);
      if (!grant) throw notFound(`no grant ${id}`);
      if (!mayChange(principal, grant))
        throw forbidden(
          grant.profileId
            ? 'only an admin may revoke a profile grant'
            : 'only an admin or an approver bound to its user may revoke this grant',
        );
      const [revoked] = await tx
        .update(grants)
        .set({ revokedAt: new Date(), revokedBy: actorOf(principal) })
        .where(and(eq(grants.id, id), isNull(grants.revokedAt)))
        .returning();
      if (!revoked) throw conflict(`grant ${id} was already revoked`, { revokedAt: grant.revokedAt });
      if (revoked.ruleId) await this.policy.remove(revoked.ruleId, principal, tx);
      return revoked;
    });
  }

  /** The plan, when this principal may grant it: a profile is for admins, a user's layer for people bound to that user. */
  private plan(
    scope: GrantScope,
    call: ToolCallRow,
    run: RunRow,
    request: GrantRequest | null,
    principal: Principal,
  ): GrantPlan {
    if (principal.role !== 'ADMIN' && principal.role !== 'APPROVER')
      throw forbidden('only an admin or an approver may grant');
    if (scope !== 'ONCE' && call.approvalsRequired > 1)
      throw badInput(
        `call ${call.id} needs ${call.approvalsRequired} approvals, so one person's approval grants nothing beyond it: use scope ONCE`,
      );
    const profileId = request?.profileId ?? null;
    if (profileId && principal.role !== 'ADMIN') throw forbidden('only an admin may grant on a profile');
    if (scope === 'ALWAYS' && !profileId && !mayChange(principal, { userId: run.userId, profileId: null }))
      throw forbidden(
        `this token may not save rules on the USER layer of ${run.userId ?? 'a run without a user'}`,
      );
    const planned = planGrant({
      scope,
      call,
      run,
      conditions: request?.conditions ?? [],
      profileId,
      actor: actorOf(principal),
    });
    if ('problem' in planned) throw badInput(planned.problem);
    return planned.plan;
  }
}

/** The grants a principal may see, in SQL so that a page is never cut short by rows it may not see. */
function visibleScope(principal: Principal): SQL | undefined {
  const scope = userScopeOf(principal);
  if (scope.all) return undefined;
  return or(
    and(eq(grants.scope, 'ALWAYS'), isNotNull(grants.profileId)),
    ...scope.patterns.map((p) => like(grants.userId, likePattern(p))),
    sql`false`,
  );
}
