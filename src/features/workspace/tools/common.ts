import { z } from 'zod';
import type { BuiltInTool, Invocation } from '../../../calls/tool-contract.js';
import { NO_BUDGET, objectSchema, plural, READ_ONLY } from '../../../calls/tool-kit.js';
import { RecoverableToolError } from '../../../core/tool-errors.js';
import type { ToolAnnotations, ToolSpec } from '../../../core/tool-spec.js';
import { patchChangeKinds } from '../rules/patch/types.js';
import type { WorkspaceSession } from '../types.js';

type WorkspaceToolSpec = BuiltInTool['spec'];

/** The call's run and workspace; its changes commit in the call's transaction, with the call's journal events. */
export function sessionOf(invocation: Invocation): WorkspaceSession {
  const workspaceId = invocation.run.workspaceId;
  if (!workspaceId) {
    throw new RecoverableToolError(
      'no_workspace',
      'This run has no workspace, so workspace tools cannot be used in it. Continue without them.',
    );
  }
  return {
    workspaceId,
    profileId: invocation.run.profileId,
    runId: invocation.run.id,
    callId: invocation.callId,
    actor: `tool:${invocation.spec.name}`,
    transaction: (work) => invocation.transaction(work),
  };
}

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

export const pathArgument = (description: string) => z.string().min(1).max(4096).describe(description);

const SHA256 = /^[0-9a-f]{64}$/;
export const sha256Argument = z.string().regex(SHA256);
export const sha256Schema = { type: 'string', pattern: SHA256.source };

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

export { objectSchema, plural, READ_ONLY };
