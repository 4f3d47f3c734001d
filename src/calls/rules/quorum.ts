import type { Principal } from '../../core/auth.js';
import { conflict, forbidden } from '../../core/errors.js';
import type { DecisionRecord } from '../../core/tool-call.js';
import type { ToolBudget } from '../../core/tool-spec.js';

/** How many distinct approvers a call under this budget needs. */
export const approvalsOf = (budget: ToolBudget): number => budget.approvals ?? 1;

/**
 * The run's own user: an approver (or admin) token whose name is the run's user, the way approver
 * tokens are named for the person they belong to, or any token bound to that user id.
 */
export function isRunsOwnUser(principal: Principal, runUserId: string | null): boolean {
  if (runUserId === null) return false;
  return principal.userId === runUserId || principal.name === runUserId;
}

/** Separation of duties: refused before anything is recorded. */
export function assertMayApprove(principal: Principal, runUserId: string | null, forbidSelf: boolean): void {
  if (forbidSelf && isRunsOwnUser(principal, runUserId))
    throw forbidden(`the run's own user (${runUserId}) may not approve its calls`);
}

export interface QuorumStep {
  /** This approval is the N-th: the call is approved and runs. */
  reached: boolean;
  approvals: DecisionRecord[];
  count: number;
  required: number;
}

/**
 * One more approval on a call that still awaits its quorum. The same approver twice counts once,
 * so a second approval of theirs is a CONFLICT, as is one past the quorum (the call is then no
 * longer awaiting approval, which the caller sees first).
 */
export function addApproval(
  call: { approvals: readonly DecisionRecord[]; approvalsRequired: number },
  approval: DecisionRecord,
): QuorumStep {
  if (call.approvals.some((a) => a.decidedBy === approval.decidedBy))
    throw conflict('you already approved this call', {
      approvals: call.approvals.length,
      required: call.approvalsRequired,
    });
  const approvals = [...call.approvals, approval];
  const count = approvals.length;
  const required = call.approvalsRequired;
  return { reached: count >= required, approvals, count, required };
}
