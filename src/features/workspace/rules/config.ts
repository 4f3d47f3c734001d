import {
  DEFAULT_ROOTS,
  narrowRoots,
  type RootAccess,
  type RootNarrowing,
  type WorkspaceRoot,
} from './roots.js';

/** Per profile: the roots it may see and write, and what `workspace.finish` requires of it. */
export interface ProfileWorkspaceRules extends RootNarrowing {
  requiredArtifacts?: readonly string[] | undefined;
}

/**
 * Workspace settings of a server. Profiles narrow roots through this map (profile id → rules),
 * handed to the workspace service and tools when they are built; a profile without an entry
 * uses the workspace's roots as they are.
 */
export interface WorkspaceConfig {
  /** Roots of a workspace created on first use. */
  defaultRoots: readonly WorkspaceRoot[];
  profiles: Readonly<Record<string, ProfileWorkspaceRules>>;
  /** What `workspace.finish` requires when the profile names nothing itself. */
  requiredArtifacts: readonly string[];
}

export const DEFAULT_WORKSPACE_CONFIG: WorkspaceConfig = {
  defaultRoots: DEFAULT_ROOTS,
  profiles: {},
  requiredArtifacts: ['output/'],
};

// Own keys only: a profile id such as `constructor` must not pick up Object.prototype.
const rulesOf = (config: WorkspaceConfig, profileId: string | null) =>
  profileId !== null && Object.hasOwn(config.profiles, profileId) ? config.profiles[profileId] : undefined;

export function accessFor(
  config: WorkspaceConfig,
  roots: readonly WorkspaceRoot[],
  profileId: string | null,
): RootAccess {
  return narrowRoots(roots, rulesOf(config, profileId));
}

export function requiredArtifactsFor(config: WorkspaceConfig, profileId: string | null): readonly string[] {
  return rulesOf(config, profileId)?.requiredArtifacts ?? config.requiredArtifacts;
}
