import { z } from 'zod';
import { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from './rules/config.js';
import { normaliseFolder } from './rules/roots.js';

const folder = z
  .string()
  .min(1)
  .transform((raw, ctx) => {
    try {
      return normaliseFolder(raw);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

/** The `WORKSPACE_CONFIG` JSON file: roots of new workspaces, per-profile narrowing, finish requirements. */
export const workspaceConfigFileSchema = z
  .object({
    defaultRoots: z
      .array(z.object({ path: folder, writable: z.boolean() }).strict())
      .min(1)
      .optional(),
    requiredArtifacts: z.array(z.string().min(1)).optional(),
    profiles: z
      .record(
        z.string().min(1),
        z
          .object({
            visible: z.array(folder).optional(),
            writable: z.array(folder).optional(),
            requiredArtifacts: z.array(z.string().min(1)).optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

export function workspaceConfigFrom(json: unknown): WorkspaceConfig {
  const parsed = workspaceConfigFileSchema.parse(json);
  return {
    defaultRoots: parsed.defaultRoots ?? DEFAULT_WORKSPACE_CONFIG.defaultRoots,
    requiredArtifacts: parsed.requiredArtifacts ?? DEFAULT_WORKSPACE_CONFIG.requiredArtifacts,
    profiles: parsed.profiles ?? {},
  };
}
