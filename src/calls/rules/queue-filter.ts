import { z } from 'zod';
import { BINDING_PATTERN, bindingMatches } from '../../core/access.js';
import { toolSources } from '../../core/tool-spec.js';

/** How a call moves through an approval-queue subscription; SNAPSHOT_END marks where "now" ends and "live" begins. */
export const approvalQueueEventKinds = ['ENTERED', 'LEFT', 'SNAPSHOT_END'] as const;
export type ApprovalQueueEventKind = (typeof approvalQueueEventKinds)[number];

/** Tool names are dotted ids (`workspace.write_file`, `mcp.fs.read`); a pattern adds `*` and `?`. */
const TOOL_PATTERN = /^[A-Za-z0-9_.:*?-]{1,256}$/;

/**
 * A dashboard's narrowing of the queue. It only narrows: what the token may not see is gone
 * before any filter applies.
 */
export const approvalQueueFilterSchema = z
  .object({
    userId: z
      .string()
      .regex(BINDING_PATTERN, 'a user id: letters, digits and _ . @ : -')
      .refine((v) => !/[*?]/.test(v), 'a user id, not a pattern')
      .nullish(),
    runId: z.uuid('a run id (UUID)').nullish(),
    toolPattern: z
      .string()
      .regex(TOOL_PATTERN, 'a tool name or a glob with * and ?, such as "workspace.*"')
      .nullish(),
    source: z.enum(toolSources).nullish(),
  })
  .strict();

export type ApprovalQueueFilter = z.output<typeof approvalQueueFilterSchema>;

/** What the filter reads of a call: the call itself and its run's user. */
export interface QueuedCall {
  runId: string;
  name: string;
  tool: { source: string } | null;
}

/** The in-memory twin of the SQL filter, for calls that enter the queue after the snapshot. */
export function matchesQueueFilter(
  filter: ApprovalQueueFilter | null | undefined,
  call: QueuedCall,
  runUserId: string | null,
): boolean {
  if (!filter) return true;
  if (filter.runId && call.runId !== filter.runId) return false;
  if (filter.userId && runUserId !== filter.userId) return false;
  if (filter.toolPattern && !bindingMatches(filter.toolPattern, call.name)) return false;
  if (filter.source && call.tool?.source !== filter.source) return false;
  return true;
}

/** Whether matching needs the run's user, which costs a lookup per run. */
export const needsRunUser = (filter: ApprovalQueueFilter | null | undefined): boolean =>
  Boolean(filter?.userId);
