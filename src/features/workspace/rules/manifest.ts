import { normaliseFolder } from './roots.js';

/**
 * What `workspace.finish` checks before it completes a run. A requirement is a file path
 * (`output/report.md`: it must exist and be non-empty) or a folder ending in `/` (`output/`: it
 * must hold at least one non-empty file). Requirements come from the profile's configuration and
 * from the artifacts the model names when it finishes.
 */
export interface ManifestProblem {
  requirement: string;
  problem: 'missing' | 'empty';
}

const isFolder = (requirement: string) => requirement.endsWith('/');

export function checkManifest(
  requirements: readonly string[],
  sizes: ReadonlyMap<string, number>,
): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const requirement of [...new Set(requirements)]) {
    if (isFolder(requirement)) {
      const prefix = `${normaliseFolder(requirement)}/`;
      const inside = [...sizes].filter(([path]) => path.startsWith(prefix));
      if (inside.length === 0) problems.push({ requirement, problem: 'missing' });
      else if (inside.every(([, size]) => size === 0)) problems.push({ requirement, problem: 'empty' });
      continue;
    }
    const size = sizes.get(requirement);
    if (size === undefined) problems.push({ requirement, problem: 'missing' });
    else if (size === 0) problems.push({ requirement, problem: 'empty' });
  }
  return problems;
}

function describe({ requirement, problem }: ManifestProblem): string {
  if (isFolder(requirement)) {
    return problem === 'missing' ? `${requirement} holds no file` : `${requirement} holds only empty files`;
  }
  return problem === 'missing' ? `${requirement} does not exist` : `${requirement} is empty`;
}

export function manifestMessage(problems: readonly ManifestProblem[]): string {
  return (
    `The work is not finished: ${problems.map(describe).join('; ')}. ` +
    'Write the missing artifacts, then call workspace.finish again.'
  );
}
