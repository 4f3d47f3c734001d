/**
 * A workspace is a flat map of file paths; folders are the prefixes files share. A path cannot
 * be a file and a folder at once, the same rule the patch engine applies.
 */
export interface TreeConflict {
  code: 'is_directory' | 'parent_is_file';
  path: string;
  /** The file in the way: one inside `path`, or the file that `path` would have to be a folder of. */
  blocker: string;
  message: string;
}

/** Folders that would have to hold `path`: `a/b/c` → `a`, `a/b`. */
export function ancestorsOf(path: string): string[] {
  const segments = path.split('/');
  return segments.slice(1).map((_, i) => segments.slice(0, i + 1).join('/'));
}

/**
 * The files of a workspace and the folders they imply, to tell whether a new file fits in:
 * it may not take the name of a folder, nor sit beneath a file.
 */
export class PathIndex {
  private readonly files = new Set<string>();
  /** Folder → one file inside it, to name in messages. */
  private readonly folders = new Map<string, string>();

  constructor(paths: Iterable<string> = []) {
    for (const path of paths) this.add(path);
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  add(path: string): void {
    this.files.add(path);
    for (const folder of ancestorsOf(path)) if (!this.folders.has(folder)) this.folders.set(folder, path);
  }

  /** Why a file cannot be written at `path`; null when it can (an existing file may be replaced). */
  conflict(path: string): TreeConflict | null {
    const inside = this.folders.get(path);
    if (inside !== undefined) {
      return {
        code: 'is_directory',
        path,
        blocker: inside,
        message: `"${path}" is a folder (it holds "${inside}"), so it cannot also be a file; choose another name`,
      };
    }
    const parent = ancestorsOf(path).find((folder) => this.files.has(folder));
    if (parent !== undefined) {
      return {
        code: 'parent_is_file',
        path,
        blocker: parent,
        message: `"${path}" cannot be created: "${parent}" is a file, so it cannot also be a folder`,
      };
    }
    return null;
  }
}

export const treeEntryKinds = ['file', 'folder'] as const;
export type TreeEntryKind = (typeof treeEntryKinds)[number];

export interface TreeEntry {
  /** Full path of the file or folder. */
  path: string;
  name: string;
  kind: TreeEntryKind;
  /** Bytes of the file, or of every file inside the folder. */
  size: number;
  /** 1 for a file; the files inside a folder, at any depth. */
  fileCount: number;
}

/** One level of the tree under `folder` ('' for the top): its files and sub-folders, by name. */
export function treeLevel(files: ReadonlyArray<{ path: string; size: number }>, folder: string): TreeEntry[] {
  const prefix = folder === '' ? '' : `${folder}/`;
  const entries = new Map<string, TreeEntry>();
  for (const file of files) {
    if (!file.path.startsWith(prefix)) continue;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    const name = slash === -1 ? rest : rest.slice(0, slash);
    const kind = slash === -1 ? 'file' : 'folder';
    const key = `${kind}:${name}`;
    const entry = entries.get(key) ?? { path: `${prefix}${name}`, name, kind, size: 0, fileCount: 0 };
    entry.size += file.size;
    entry.fileCount += 1;
    entries.set(key, entry);
  }
  return [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
