import { checkWorkspacePath, isPathUnder } from './paths.js';

/**
 * Roots are the folders of a workspace a tool may touch at all. Every root is visible; a
 * writable one may also be written. A file outside every root exists for nobody but imports and
 * operators (GraphQL, CLI), so a model can neither see nor overwrite it.
 */
export interface WorkspaceRoot {
  /** A normalised folder path without a trailing slash: `output`, `inputs/chat`. */
  path: string;
  writable: boolean;
}

/** Generated artifacts go to writable roots; material the run was given sits in read-only `inputs`. */
export const DEFAULT_ROOTS: readonly WorkspaceRoot[] = [
  { path: 'output', writable: true },
  { path: 'scratch', writable: true },
  { path: 'plan', writable: true },
  { path: 'summaries', writable: true },
  { path: 'persist', writable: true },
  { path: 'inputs', writable: false },
];

/**
 * How a profile narrows a workspace's roots: folders it may see and folders it may write, each
 * a root or a folder inside one. An unset list keeps what the workspace allows. A narrowing can
 * only take away: a folder outside every root, or writable only by the profile's say-so, grants
 * nothing.
 */
export interface RootNarrowing {
  visible?: readonly string[] | undefined;
  writable?: readonly string[] | undefined;
}

/** What one run may do in one workspace: folders (normalised, no trailing slash) it sees and writes. */
export interface RootAccess {
  visible: string[];
  writable: string[];
}

/** Normalises a configured folder; a folder that breaks the path rules is a configuration bug. */
export function normaliseFolder(raw: string): string {
  const checked = checkWorkspacePath(raw.replace(/\/+$/, ''));
  if (!checked.ok)
    throw new Error(`workspace folder ${JSON.stringify(raw)} is not valid: ${checked.message}`);
  return checked.path;
}

const sameOrUnder = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/** Folders covered by both sets: each folder of one set that lies within a folder of the other. */
function intersect(a: readonly string[], b: readonly string[]): string[] {
  const within = [
    ...a.filter((x) => b.some((y) => sameOrUnder(x, y))),
    ...b.filter((y) => a.some((x) => sameOrUnder(y, x))),
  ];
  return outermost(within);
}

/** Drops duplicates and folders inside another folder of the set; sorted. */
function outermost(folders: readonly string[]): string[] {
  const unique = [...new Set(folders)].sort();
  return unique.filter((f) => !unique.some((other) => other !== f && sameOrUnder(f, other)));
}

export function narrowRoots(roots: readonly WorkspaceRoot[], narrowing?: RootNarrowing): RootAccess {
  const all = roots.map((r) => r.path);
  const visible = intersect(all, (narrowing?.visible ?? all).map(normaliseFolder));
  const writableRoots = roots.filter((r) => r.writable).map((r) => r.path);
  const allowed = intersect(writableRoots, visible);
  const writable = narrowing?.writable
    ? intersect(allowed, narrowing.writable.map(normaliseFolder))
    : allowed;
  return { visible, writable };
}

export const canSee = (access: RootAccess, path: string): boolean =>
  access.visible.some((folder) => isPathUnder(path, folder));

/** A folder is visible when it is a visible folder or lies inside one. */
export const canSeeFolder = (access: RootAccess, folder: string): boolean =>
  access.visible.some((visible) => folder === visible || isPathUnder(folder, visible));

export const canWrite = (access: RootAccess, path: string): boolean =>
  access.writable.some((folder) => isPathUnder(path, folder));

/** The access as a model reads it: each visible folder, and writable folders inside read-only ones. */
export function describeRoots(access: RootAccess): WorkspaceRoot[] {
  const entries = access.visible.map((path) => ({
    path,
    writable: access.writable.some((w) => sameOrUnder(path, w)),
  }));
  for (const path of access.writable) {
    if (!entries.some((e) => e.path === path)) entries.push({ path, writable: true });
  }
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const listFolders = (folders: readonly string[]) =>
  folders.length === 0 ? 'none' : folders.map((f) => `${f}/`).join(', ');

export function notVisibleMessage(path: string, access: RootAccess): string {
  return `"${path}" is outside the folders you can see (${listFolders(access.visible)}); use a path inside one of them`;
}

export function notWritableMessage(path: string, access: RootAccess): string {
  return `"${path}" is not in a folder you may write (${listFolders(access.writable)}); write your files there instead`;
}
