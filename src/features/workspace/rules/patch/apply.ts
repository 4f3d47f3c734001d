import { parsePatch } from './parse.js';
import type { FileChange, FileOp, ParsedPatch, PatchError, PatchFailure } from './types.js';
import { type HunkMiss, updateContent } from './update.js';

/**
 * Applies a patch to an in-memory snapshot (path → content of every file in the workspace).
 * Operations run in order on a private copy, so a later one sees an earlier one as in Codex, but
 * unlike Codex the patch is atomic: the first failure discards the copy and the caller gets an
 * error with nothing applied. Codex's filesystem semantics carry over to the flat map: Add
 * overwrites an existing file, a move overwrites its destination, and a "directory" is a prefix
 * that has files under it, which no operation may replace, delete or write beneath a file.
 */

export type ApplyResult =
  | { ok: true; files: Map<string, string>; changes: FileChange[] }
  | { ok: false; error: PatchError };

type OpOutcome = { ok: true; change: FileChange } | { ok: false; error: PatchFailure };

const REJECTED = 'The whole patch was rejected, so no file was changed.';

export function applyPatch(snapshot: ReadonlyMap<string, string>, text: string): ApplyResult {
  const parsed = parsePatch(text);
  return parsed.ok ? applyParsedPatch(snapshot, parsed.patch) : parsed;
}

export function applyParsedPatch(snapshot: ReadonlyMap<string, string>, patch: ParsedPatch): ApplyResult {
  const files = new Map(snapshot);
  const changes: FileChange[] = [];
  for (const op of patch.ops) {
    const outcome = applyOp(files, op);
    if (!outcome.ok) return outcome;
    changes.push(outcome.change);
  }
  return { ok: true, files, changes };
}

function applyOp(files: Map<string, string>, op: FileOp): OpOutcome {
  switch (op.type) {
    case 'add': {
      const blocked = findConflict(files, op.path, op);
      if (blocked) return blocked;
      files.set(op.path, op.content);
      return { ok: true, change: { path: op.path, kind: 'add' } };
    }
    case 'delete':
      if (!files.has(op.path)) return missingFile(files, op);
      files.delete(op.path);
      return { ok: true, change: { path: op.path, kind: 'delete' } };
    case 'update':
      return applyUpdate(files, op);
  }
}

function applyUpdate(files: Map<string, string>, op: Extract<FileOp, { type: 'update' }>): OpOutcome {
  const original = files.get(op.path);
  if (original === undefined) return missingFile(files, op);
  let content = original;
  if (op.hunks.length > 0) {
    const updated = updateContent(original, op.hunks);
    if (!updated.ok) return { ok: false, error: describeMiss(op, updated.miss) };
    content = updated.content;
  }
  // Codex deletes a file moved onto itself; here that is just an update.
  if (op.moveTo === null || op.moveTo === op.path) {
    files.set(op.path, content);
    return { ok: true, change: { path: op.path, kind: 'update' } };
  }
  files.delete(op.path);
  const blocked = findConflict(files, op.moveTo, op);
  if (blocked) return blocked;
  files.set(op.moveTo, content);
  return { ok: true, change: { path: op.moveTo, kind: 'move', from: op.path } };
}

function label(op: FileOp): string {
  const verb = op.type === 'add' ? 'Add' : op.type === 'delete' ? 'Delete' : 'Update';
  return `"*** ${verb} File: ${op.path}" (line ${op.line})`;
}

function failure(op: FileOp, code: PatchFailure['code'], text: string, path = op.path): OpOutcome {
  return {
    ok: false,
    error: { kind: 'recoverable', code, message: `${label(op)}: ${text} ${REJECTED}`, line: op.line, path },
  };
}

function filesUnder(files: ReadonlyMap<string, string>, folder: string): number {
  const prefix = `${folder}/`;
  let count = 0;
  for (const path of files.keys()) if (path.startsWith(prefix)) count += 1;
  return count;
}

function missingFile(files: ReadonlyMap<string, string>, op: FileOp): OpOutcome {
  const inside = filesUnder(files, op.path);
  if (inside > 0) {
    return failure(
      op,
      'is_directory',
      `"${op.path}" is a directory holding ${inside} file(s), not a file; name the files inside it one by one.`,
    );
  }
  const hint = op.type === 'update' ? ' Use "*** Add File:" to create it.' : '';
  return failure(op, 'file_not_found', `file "${op.path}" does not exist.${hint}`);
}

/** A file cannot take the place of a directory, nor be written beneath another file. */
function findConflict(files: ReadonlyMap<string, string>, path: string, op: FileOp): OpOutcome | null {
  if (filesUnder(files, path) > 0) {
    return failure(op, 'is_directory', `cannot write "${path}": a directory of that name exists.`, path);
  }
  const segments = path.split('/');
  for (let depth = 1; depth < segments.length; depth++) {
    const parent = segments.slice(0, depth).join('/');
    if (files.has(parent)) {
      return failure(
        op,
        'parent_is_file',
        `cannot write "${path}": "${parent}" is a file, so it cannot also be a directory.`,
        path,
      );
    }
  }
  return null;
}

function describeMiss(op: Extract<FileOp, { type: 'update' }>, miss: HunkMiss): PatchFailure {
  const where =
    miss.searchedFrom > 1
      ? ` below line ${miss.searchedFrom - 1} (the search resumes after the previous @@ context or hunk)`
      : '';
  const what =
    miss.code === 'context_not_found'
      ? `could not find the "@@" context line${where}`
      : `could not find the lines to replace${where}${op.hunks[miss.hunk - 1]?.endOfFile ? ' at the end of the file' : ''}`;
  const earlier =
    miss.foundEarlierAt === null
      ? ''
      : ` They occur at line ${miss.foundEarlierAt}, above that point: @@ contexts and hunks must follow file order.`;
  const message =
    `${label(op)}, hunk ${miss.hunk} (line ${miss.line}): ${what}:\n` +
    `\`\`\`\n${miss.expected.join('\n')}\n\`\`\`\n` +
    `Matching already ignores surrounding whitespace and typographic punctuation.${earlier} ` +
    `Re-read "${op.path}" and copy the context exactly. ${REJECTED}`;
  return {
    kind: 'recoverable',
    code: miss.code,
    message,
    line: miss.line,
    path: op.path,
    hunk: miss.hunk,
    expected: miss.expected,
  };
}
