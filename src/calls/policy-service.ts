import { and, asc, eq, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { coversUser } from '../core/access.js';
import { actorOf, type Principal } from '../core/auth.js';
import { forbidden, notFound } from '../core/errors.js';
import { type ValidationIssue, validateAgainst } from '../core/json-schema.js';
import { parseInput } from '../core/parse-input.js';
import {
  type Availability,
  type EffectiveTool,
  type PolicyCaller,
  type PolicyContext,
  type RunUsage,
  resolvePolicy,
} from '../core/policy.js';
import { conditionOf, type PathCanonicaliser } from '../core/policy-conditions.js';
import {
  type PolicyLayer,
  type PolicyRule,
  type PolicyRuleInput,
  policyRuleInputSchema,
} from '../core/policy-rule.js';
import { normalizeBudget, type ToolSpec } from '../core/tool-spec.js';
import type { Db } from '../db/client.js';
import type { Executor } from '../db/tx.js';
import { Cached } from '../journal/cached.js';
import type { Invalidations } from '../journal/invalidations.js';
import type { ToolAvailability } from './availability.js';
import type { RegistryService } from './registry-service.js';
import { type CallDecision, decideCall } from './rules/decide.js';
import { type PolicyRuleRow, policyRules } from './tables.js';

const ruleOf = (row: PolicyRuleRow): PolicyRule => ({
  id: row.id,
  layer: row.layer,
  scopeId: row.scopeId,
  toolPattern: row.toolPattern,
  effect: row.effect,
  skipApproval: row.skipApproval,
  budget: row.budget,
  reason: row.reason,
  conditions: row.conditions,
});

/** Where the decision ladder can end for a call without a run (so without an earlier denial to repeat). */
export const explainOutcomes = [
  'ACCEPTED',
  'AWAITING_APPROVAL',
  'UNKNOWN_TOOL',
  'POLICY_DENIED',
  'INVALID_ARGUMENTS',
  'BUDGET_EXHAUSTED',
  'UNAVAILABLE',
] as const satisfies readonly CallDecision['outcome'][];
type ExplainOutcome = (typeof explainOutcomes)[number];

/** What a model's call with these arguments would get in a context, without making it. */
export interface PolicyExplanation {
  tool: string;
  /** What the call would come to: ACCEPTED (runs at once), AWAITING_APPROVAL, or why it is refused. */
  outcome: ExplainOutcome;
  /** The policy view the decision was made on; null for a name no tool has. */
  view: EffectiveTool | null;
  /** How the arguments fail the tool's input schema; empty when they pass. */
  issues: ValidationIssue[];
}

/** Admins set any rule; an approver may set USER rules of the users it is bound to, and nothing else. */
function assertMaySet(principal: Principal, layer: PolicyLayer, scopeId: string | null | undefined): void {
  if (principal.role === 'ADMIN') return;
  if (principal.role === 'APPROVER' && layer === 'USER' && scopeId && coversUser(principal, scopeId)) return;
  throw forbidden(
    layer === 'USER'
      ? 'only an admin or an approver token bound to that user may change USER rules'
      : `only an admin may change ${layer} rules`,
  );
}

/** Whether a rule can apply in this context: the platform's, every source's, and the scopes the context names. */
function appliesIn(rule: PolicyRule, context: PolicyContext): boolean {
  switch (rule.layer) {
    case 'PLATFORM':
      return rule.scopeId === null;
    case 'SOURCE':
      return true;
    case 'USER':
      return !!context.userId && rule.scopeId === context.userId;
    case 'PROFILE':
      return !!context.profileId && rule.scopeId === context.profileId;
    case 'PLAN_NODE':
      return !!context.planNodeId && rule.scopeId === context.planNodeId;
  }
}

export class PolicyService {
  /** Every rule, oldest first: the table is small and every call request reads it. */
  private readonly rules: Cached<PolicyRule[]>;

  constructor(
    private readonly db: Db,
    private readonly registry: RegistryService,
    private readonly availability: ToolAvailability,
    /** The workspace path rules, for conditions on path arguments (core cannot import a feature). */
    private readonly canonicalPath: PathCanonicaliser,
    private readonly changes: Invalidations,
  ) {
    this.rules = new Cached(changes, 'policy');
  }

  async list(filter: { layer?: PolicyLayer | null; scopeId?: string | null }): Promise<PolicyRule[]> {
    const conditions: SQL[] = [];
    if (filter.layer) conditions.push(eq(policyRules.layer, filter.layer));
    if (filter.scopeId) conditions.push(eq(policyRules.scopeId, filter.scopeId));
    const rows = await this.db
      .select()
      .from(policyRules)
      .where(and(...conditions))
      .orderBy(asc(policyRules.layer), asc(policyRules.createdAt), asc(policyRules.id));
    return rows.map(ruleOf);
  }

  /** `db` lets a caller save the rule in its own transaction (a grant saves one with its approval). */
  async set(
    raw: PolicyRuleInput | unknown,
    principal: Principal,
    db: Executor = this.db,
  ): Promise<PolicyRule> {
    const input = parseInput(policyRuleInputSchema, raw);
    assertMaySet(principal, input.layer, input.scopeId);
    const values = {
      layer: input.layer,
      scopeId: input.scopeId ?? null,
      toolPattern: input.toolPattern,
      effect: input.effect,
      skipApproval: input.skipApproval ?? false,
      budget: input.budget ? normalizeBudget(input.budget) : null,
      reason: input.reason ?? null,
      conditions: (input.conditions ?? []).map(conditionOf),
      createdBy: actorOf(principal),
    };
    return this.write(db, async (tx) => {
      const id = input.id;
      if (id) {
        const existing = await this.get(id, tx);
        assertMaySet(principal, existing.layer, existing.scopeId);
      }
      const [row] = id
        ? await tx.update(policyRules).set(values).where(eq(policyRules.id, id)).returning()
        : await tx.insert(policyRules).values(values).returning();
      await this.changes.notify(tx, 'policy');
      return ruleOf(row!);
    });
  }

  async remove(id: string, principal: Principal, db: Executor = this.db): Promise<boolean> {
    return this.write(db, async (tx) => {
      const existing = await this.get(id, tx);
      assertMaySet(principal, existing.layer, existing.scopeId);
      await tx.delete(policyRules).where(eq(policyRules.id, id));
      await this.changes.notify(tx, 'policy');
      return true;
    });
  }

  /** `work` in the caller's transaction when it gives one (its owner commits), else in one of its own. */
  private write<T>(db: Executor, work: (tx: Executor) => Promise<T>): Promise<T> {
    return db === this.db ? this.changes.transaction(work) : work(db);
  }

  private async get(id: string, db: Executor): Promise<PolicyRule> {
    if (!z.uuid().safeParse(id).success) throw notFound(`no policy rule ${id}`);
    const [row] = await db.select().from(policyRules).where(eq(policyRules.id, id)).limit(1);
    if (!row) throw notFound(`no policy rule ${id}`);
    return ruleOf(row);
  }

  /**
   * The rules that can apply to this context, oldest first; resolution itself is the pure function
   * in core/policy.ts. Read from this process's copy of the table; `db`, when it is a transaction,
   * is the one a load runs on (a single-connection database would wait on it otherwise), and one
   * that changed rules itself reads its own.
   */
  async rulesFor(context: PolicyContext, db: Executor = this.db): Promise<PolicyRule[]> {
    const all = await this.rules.read(async () => {
      const rows = await db
        .select()
        .from(policyRules)
        .orderBy(asc(policyRules.createdAt), asc(policyRules.id));
      return rows.map(ruleOf);
    }, db);
    return all.filter((rule) => appliesIn(rule, context));
  }

  /** What the model of a run with this context is offered (and why each other tool is not). */
  async effectiveTools(context: PolicyContext, usage?: RunUsage): Promise<EffectiveTool[]> {
    const [tools, rules] = await Promise.all([this.registry.all(), this.rulesFor(context)]);
    const availability = await this.availability.of(tools);
    return resolvePolicy(tools, rules, context, usage, { availability, canonicalPath: this.canonicalPath });
  }

  /**
   * Whether these tools can run now. Asked outside any transaction: the executors read presence
   * rows through their own handle, which on a single-connection database would wait on the
   * caller's open transaction forever.
   */
  availabilityOf(specs: readonly ToolSpec[]): Promise<Availability> {
    return this.availability.of(specs);
  }

  /**
   * One tool for one call, resolved exactly as `effectiveTools` resolves it, for the caller making
   * the call: the one policy path every request (the model's or a person's) goes through. Rules
   * with conditions are decided on `arguments`, which must have passed the tool's input schema;
   * without them the view is the one `effectiveTools` gives.
   */
  async viewFor(
    spec: ToolSpec,
    context: PolicyContext,
    call: {
      usage?: RunUsage | undefined;
      caller: PolicyCaller;
      availability: Availability;
      arguments?: Record<string, unknown> | undefined;
    },
    db: Executor = this.db,
  ): Promise<EffectiveTool> {
    const rules = await this.rulesFor(context, db);
    const { usage, ...options } = call;
    return resolvePolicy([spec], rules, context, usage, {
      ...options,
      canonicalPath: this.canonicalPath,
    })[0]!;
  }

  /**
   * What a model's call would get in this context, decided as `requestToolCall` decides it (the
   * arguments checked against the schema first, the conditions on them, the same ladder), but
   * without a run: no calls are counted against a budget, and nothing is recorded.
   */
  async explain(
    context: PolicyContext,
    name: string,
    args: Record<string, unknown>,
  ): Promise<PolicyExplanation> {
    const spec = await this.registry.get(name);
    const issues = spec ? validateAgainst(spec.inputSchema, args) : [];
    const view = spec
      ? await this.viewFor(spec, context, {
          caller: 'MODEL',
          availability: await this.availabilityOf([spec]),
          arguments: issues.length === 0 ? args : undefined,
        })
      : null;
    const decision = decideCall({
      name,
      spec,
      view,
      issues: view?.permitted ? issues : [],
      deniedToolStrategy: 'RETURN_DENIED_RESULT',
      now: new Date(),
    });
    // No run, so no earlier denial is passed in: the ladder ends on one of explainOutcomes.
    return { tool: name, outcome: decision.outcome as ExplainOutcome, view, issues };
  }
}
