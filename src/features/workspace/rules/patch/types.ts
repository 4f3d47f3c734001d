import type { PathEscapeCode, PathInvalidCode } from '../paths.js';

/**
 * One `@@` section of an `*** Update File:`. `contexts` holds the `@@ <text>` headers, each
 * sought after the previous one, to narrow where `oldLines` are looked for.
 */
export interface Hunk {
  contexts: string[];
  oldLines: string[];
  newLines: string[];
  /** Set by `*** End of File`: `oldLines` must be the last lines of the file. */
  endOfFile: boolean;
  /** 1-based line of the patch text where the hunk starts, for error messages. */
  line: number;
}

/** Paths are already normalised by `checkWorkspacePath`. */
export type FileOp =
  | { type: 'add'; path: string; content: string; line: number }
  | { type: 'delete'; path: string; line: number }
  | { type: 'update'; path: string; moveTo: string | null; hunks: Hunk[]; line: number };

export interface ParsedPatch {
  ops: FileOp[];
}

export type PatchErrorCode =
  | 'empty_patch'
  | 'missing_begin_marker'
  | 'missing_end_marker'
  | 'invalid_hunk_header'
  | 'invalid_hunk_line'
  | 'missing_path'
  | 'empty_update'
  | 'empty_hunk'
  | 'file_not_found'
  | 'is_directory'
  | 'parent_is_file'
  | 'context_not_found'
  | 'lines_not_found';

/** A path in the patch tries to leave the workspace: the caller fails the run (seed §11). */
export interface PatchEscape {
  kind: 'escape';
  code: PathEscapeCode;
  message: string;
  path: string;
  line: number;
}

/** Anything the model can fix by re-reading files and sending a corrected patch. */
export interface PatchFailure {
  kind: 'recoverable';
  code: PatchErrorCode | PathInvalidCode;
  message: string;
  /** 1-based line of the patch text the failure points at. */
  line?: number;
  path?: string;
  /** 1-based index of the failing `@@` hunk within its file. */
  hunk?: number;
  /** The context or old lines that were not found, exactly as the patch gave them. */
  expected?: string[];
}

export type PatchError = PatchEscape | PatchFailure;

export const patchChangeKinds = ['add', 'update', 'delete', 'move'] as const;
export type PatchChangeKind = (typeof patchChangeKinds)[number];

export interface FileChange {
  path: string;
  kind: PatchChangeKind;
  /** The source path of a move. */
  from?: string;
}
