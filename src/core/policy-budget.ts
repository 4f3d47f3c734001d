import type { ToolBudget } from './tool-spec.js';

/** The strictest of each limit wins: the smallest limits, the most approvers, any ban on self-approval. */
export function tightest(budgets: Array<ToolBudget | null>): ToolBudget {
  const min = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  const max = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
  return budgets.reduce<ToolBudget>(
    (acc, b) =>
      b
        ? {
            maxCalls: min(acc.maxCalls, b.maxCalls),
            maxOutputTokens: min(acc.maxOutputTokens, b.maxOutputTokens),
            timeoutMs: min(acc.timeoutMs, b.timeoutMs),
            approvalTimeoutMs: min(acc.approvalTimeoutMs ?? null, b.approvalTimeoutMs ?? null),
            approvals: max(acc.approvals ?? null, b.approvals ?? null),
            forbidSelfApproval: acc.forbidSelfApproval || b.forbidSelfApproval ? true : null,
          }
        : acc,
    {
      maxCalls: null,
      maxOutputTokens: null,
      timeoutMs: null,
      approvalTimeoutMs: null,
      approvals: null,
      forbidSelfApproval: null,
    },
  );
}
