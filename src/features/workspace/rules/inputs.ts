import { checkWorkspacePath, isPathUnder } from './paths.js';
import type { WorkspaceRoot } from './roots.js';

/**
 * Where a host may put files: inside a read-only root (`inputs` by default), the material a run is
 * given and cannot change. Writable roots are the run's own output, so a host does not write there.
 */

/** Files per `putWorkspaceInputs` call. */
export const MAX_INPUT_FILES = 200;

/** The normalised path, or why a host may not put a file there. */
export function checkInputPath(
  raw: string,
  roots: readonly WorkspaceRoot[],
): { ok: true; path: string } | { ok: false; reason: string; message: string } {
  const checked = checkWorkspacePath(raw);
  if (!checked.ok) return { ok: false, reason: checked.code, message: checked.message };
  if (!roots.some((root) => !root.writable && isPathUnder(checked.path, root.path))) {
    const readOnly = roots.filter((root) => !root.writable).map((root) => `${root.path}/`);
    return {
      ok: false,
      reason: 'not_an_input',
      message: readOnly.length
        ? `"${checked.path}" is not inside a read-only root (${readOnly.join(', ')})`
        : `"${checked.path}": this workspace has no read-only root to put inputs in`,
    };
  }
  return { ok: true, path: checked.path };
}
