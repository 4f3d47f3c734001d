import { z } from 'zod';

/** Stable tool ids such as `workspace.apply_patch` or `mcp.github.search`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export const toolSources = ['BUILT_IN', 'MCP', 'EXTENSION', 'SKILL'] as const;
export const toolPermissions = ['ALWAYS_ALLOW', 'APPROVAL_REQUIRED', 'DENY'] as const;
export const toolVisibilities = ['MODEL', 'USER_ONLY'] as const;
export const toolCosts = ['LOW', 'MEDIUM', 'HIGH'] as const;

export type ToolSource = (typeof toolSources)[number];
type ToolPermission = (typeof toolPermissions)[number];
type ToolVisibility = (typeof toolVisibilities)[number];
type ToolCost = (typeof toolCosts)[number];

export const toolNameSchema = z
  .string()
  .regex(TOOL_NAME_PATTERN, 'must be 1-128 characters of A-Z a-z 0-9 _ - .');

const positiveInt = z.number().int().positive();
/** A quorum larger than this is a misconfiguration, not a safeguard. */
export const MAX_APPROVALS = 10;

export const toolBudgetSchema = z.object({
  maxCalls: positiveInt.nullish(),
  maxOutputTokens: positiveInt.nullish(),
  timeoutMs: positiveInt.max(3_600_000).nullish(),
  /** How long a call may wait for a decision before it ends EXPIRED (never a denial). */
  approvalTimeoutMs: positiveInt.max(30 * 24 * 3_600_000).nullish(),
  /** Distinct people who must approve a call before it runs (a two-person rule is 2). */
  approvals: z.int().min(1, 'must be 1 to 10').max(MAX_APPROVALS, 'must be 1 to 10').nullish(),
  /** The run's own user may not approve its calls. */
  forbidSelfApproval: z.boolean().nullish(),
});
export type ToolBudgetInput = z.infer<typeof toolBudgetSchema>;

export interface ToolBudget {
  maxCalls: number | null;
  maxOutputTokens: number | null;
  timeoutMs: number | null;
  approvalTimeoutMs: number | null;
  /** Distinct approvers a call needs; absent (budgets stored before quorum existed) is 1. */
  approvals?: number | null;
  /** The run's own user may not approve; absent is false. */
  forbidSelfApproval?: boolean | null;
}

export const toolAnnotationsSchema = z.object({
  readOnly: z.boolean().nullish(),
  destructive: z.boolean().nullish(),
  idempotent: z.boolean().nullish(),
  openWorld: z.boolean().nullish(),
  cost: z.enum(toolCosts).nullish(),
});
export type ToolAnnotationsInput = z.infer<typeof toolAnnotationsSchema>;

export interface ToolAnnotations {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
  cost: ToolCost | null;
}

/**
 * MCP's defaults for unset hints (readOnly false, destructive true, idempotent false, openWorld
 * true) are the cautious ones, so an unannotated tool is gated. A read-only tool cannot be
 * destructive: MCP says destructiveHint only means something when readOnlyHint is false.
 */
export function normalizeAnnotations(input: ToolAnnotationsInput | null | undefined): ToolAnnotations {
  const readOnly = input?.readOnly ?? false;
  return {
    readOnly,
    destructive: readOnly ? false : (input?.destructive ?? true),
    idempotent: input?.idempotent ?? false,
    openWorld: input?.openWorld ?? true,
    cost: input?.cost ?? null,
  };
}

export function normalizeBudget(input: ToolBudgetInput | null | undefined): ToolBudget {
  return {
    maxCalls: input?.maxCalls ?? null,
    maxOutputTokens: input?.maxOutputTokens ?? null,
    timeoutMs: input?.timeoutMs ?? null,
    approvalTimeoutMs: input?.approvalTimeoutMs ?? null,
    approvals: input?.approvals ?? null,
    forbidSelfApproval: input?.forbidSelfApproval ?? null,
  };
}

export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | null;
  annotations: ToolAnnotations;
  visibility: ToolVisibility;
  permission: ToolPermission;
  budget: ToolBudget;
  source: ToolSource;
  enabled: boolean;
  /** What people see for the tool, when it differs from `title` (legacy ToolManager). */
  displayName?: string | null;
  /** `{{argument}}` placeholders filled into the message approvers see (legacy ToolManager). */
  approvalTemplate?: string | null;
}
