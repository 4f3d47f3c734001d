import type { Services } from '../../src/app/services.js';
import type { ToolCallRow } from '../../src/calls/tables.js';
import type { WorkspaceConfig } from '../../src/features/workspace/rules/config.js';
import { sha256Hex } from '../../src/features/workspace/rules/content.js';
import type { TestDatabase } from './database.js';
import { admin, agent, approver, newRun, waitFor } from './lifecycle.js';
import { startServices } from './services.js';

export const WORKSPACE = 'ws-1';

/** The sha256 hex the workspace tools report for a file with this content. */
export const hash = (text: string) => sha256Hex(Buffer.from(text));

/** Lets profile `profileId` call every workspace tool (restore still needs approval: its permission says so). */
export async function allowWorkspace(services: Services, profileId = 'p1') {
  return services.policy.set(
    { layer: 'PROFILE', scopeId: profileId, toolPattern: 'workspace.*', effect: 'ALLOW' },
    admin,
  );
}

export async function workspaceRun(services: Services, input: Record<string, unknown> = {}) {
  await allowWorkspace(services, typeof input.profileId === 'string' ? input.profileId : 'p1');
  return newRun(services, { workspaceId: WORKSPACE, ...input });
}

export function call(services: Services, runId: string, name: string, args: Record<string, unknown> = {}) {
  return services.calls.request({ runId, name: `workspace.${name}`, arguments: args }, agent);
}

/** Approves a held call and waits until it has run. */
export async function approveAndWait(services: Services, held: ToolCallRow): Promise<ToolCallRow> {
  await services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver);
  return waitFor(async () => {
    const now = await services.calls.get(held.id);
    return now && ['COMPLETED', 'FAILED'].includes(now.status) && now;
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read the structured output and assert its exact shape themselves.
export const output = (call: ToolCallRow): any => call.result?.structured;

/** Writes a file through the tool and returns the call, which must have completed. */
export async function writeFile(
  services: Services,
  runId: string,
  path: string,
  content: string,
  mode = 'create',
) {
  const done = await call(services, runId, 'write_file', { path, content, mode });
  if (done.status !== 'COMPLETED') throw new Error(`write of ${path} failed: ${JSON.stringify(done.error)}`);
  return done;
}

/** Services whose workspace tools use `config` (profiles, requirements), started over the test database. */
export async function servicesWith(testDb: TestDatabase, config: WorkspaceConfig): Promise<Services> {
  return startServices(testDb.database, { workspace: config });
}
