import type { BuiltInTool, Invocation } from '../../../calls/tool-contract.js';
import type { ToolAnnotations, ToolBudget, ToolSpec } from '../../../core/tool-spec.js';
import { patchChangeKinds } from '../rules/patch/types.js';
import type { WorkspaceConfig } from '../rules/config.js';
import { sessionOf, WorkspaceService, type WorkspaceSession } from '../service.js';

type WorkspaceToolSpec = BuiltInTool['spec'];

/** The service over the call's database and the session of the call's run and workspace. */
export function workspaceOf(
  config: WorkspaceConfig,
  invocation: Invocation,
): { service: WorkspaceService; session: WorkspaceSession } {
  return { service: new WorkspaceService(invocation.db, config), session: sessionOf(invocation) };
}

const NO_BUDGET: ToolBudget = {
  maxCalls: null,
  maxOutputTokens: null,
  timeoutMs: null,
  approvalTimeoutMs: null,
};

export const READ_ONLY: ToolAnnotations = {
  readOnly: true,
  destructive: false,
  idempotent: true,
  openWorld: false,
  cost: 'LOW',
};

/** Every change is checkpointed and can be restored, so writing discards nothing for good. */
export const MUTATING: ToolAnnotations = {
  readOnly: false,
  destructive: false,
  idempotent: false,
  openWorld: false,
  cost: 'LOW',
};

export const spec = (
  fields: Pick<ToolSpec, 'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations'> &
    Partial<Pick<ToolSpec, 'permission'>>,
): WorkspaceToolSpec => ({
  visibility: 'MODEL',
  permission: 'ALWAYS_ALLOW',
  budget: NO_BUDGET,
  ...fields,
});

export const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

export const pathSchema = (description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description,
});

export const sha256Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };

export const checkpointRefSchema = objectSchema(
  {
    id: { type: 'string', format: 'uuid' },
    number: { type: 'integer', minimum: 1 },
  },
  ['id', 'number'],
);

export const changeSchema = objectSchema(
  {
    path: { type: 'string' },
    kind: { enum: [...patchChangeKinds] },
    from: { type: 'string', description: 'The old path of a moved file.' },
    sha256: sha256Schema,
    size: { type: 'integer', minimum: 0 },
  },
  ['path', 'kind'],
);

export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
