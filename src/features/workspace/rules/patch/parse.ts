import { checkWorkspacePath } from '../paths.js';
import type { FileOp, Hunk, ParsedPatch, PatchError, PatchFailure } from './types.js';

/**
 * Text → typed file operations, following the Lark grammar in the shared fixtures with the same
 * leniency as Codex: the Begin/End markers and file headers may be padded with whitespace, the
 * first hunk of a file may omit `@@`, and blank lines between hunks are skipped. Two additions
 * the grammar allows but Codex rejects: several `@@ <context>` lines in a row (the tool
 * instructions document them), and an `*** Update File:` with only a `*** Move to:` (a rename).
 * Every path goes through `checkWorkspacePath` here, so a parsed patch only holds safe paths.
 */

const BEGIN_PATCH = '*** Begin Patch';
const END_PATCH = '*** End Patch';
const END_OF_FILE = '*** End of File';
const FILE_HEADER = /^\*\*\* (Add|Delete|Update) File:(.*)$/;
const MOVE_TO = /^\*\*\* Move to:(.*)$/;

export type ParseResult = { ok: true; patch: ParsedPatch } | { ok: false; error: PatchError };

type Step<T> = { ok: true; value: T; next: number } | { ok: false; error: PatchError };

const show = (text: string): string => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);

function fail(
  code: PatchFailure['code'],
  message: string,
  details: Omit<PatchFailure, 'kind' | 'code' | 'message'> = {},
): { ok: false; error: PatchFailure } {
  return { ok: false, error: { kind: 'recoverable', code, message, ...details } };
}

export function parsePatch(text: string): ParseResult {
  const lines = text.split(/\r?\n/);
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first === -1) {
    return fail(
      'empty_patch',
      `the patch is empty; it must start with "${BEGIN_PATCH}" and end with "${END_PATCH}"`,
    );
  }
  const last = lines.findLastIndex((line) => line.trim() !== '');
  if (lines[first]!.trim() !== BEGIN_PATCH) {
    return fail(
      'missing_begin_marker',
      `line ${first + 1}: the patch must start with "${BEGIN_PATCH}", got ${show(lines[first]!)}`,
      { line: first + 1 },
    );
  }
  if (last === first || lines[last]!.trim() !== END_PATCH) {
    return fail(
      'missing_end_marker',
      `line ${last + 1}: the patch must end with "${END_PATCH}", got ${show(lines[last]!)}`,
      { line: last + 1 },
    );
  }
  const ops: FileOp[] = [];
  for (let index = first + 1; index < last; ) {
    const step = parseFileOp(lines, index, last);
    if (!step.ok) return step;
    ops.push(step.value);
    index = step.next;
  }
  if (ops.length === 0) {
    return fail(
      'empty_patch',
      'the patch has no file operations; add at least one "*** Add File: <path>", "*** Delete File: <path>" or "*** Update File: <path>" section',
      { line: first + 1 },
    );
  }
  return { ok: true, patch: { ops } };
}

/** Every path the patch touches, once each in order, so the caller can check roots before applying. */
export function patchPaths(patch: ParsedPatch): string[] {
  const paths = patch.ops.flatMap((op) =>
    op.type === 'update' && op.moveTo !== null ? [op.path, op.moveTo] : [op.path],
  );
  return [...new Set(paths)];
}

function parseFileOp(lines: readonly string[], index: number, end: number): Step<FileOp> {
  const text = lines[index]!;
  const line = index + 1;
  const header = FILE_HEADER.exec(text.trim());
  if (!header) {
    return fail(
      'invalid_hunk_header',
      `invalid hunk header at line ${line}: ${show(text)}; ${explainBadHeader(text)}`,
      {
        line,
      },
    );
  }
  const path = checkPath(header[2]!, line);
  if (!path.ok) return path;
  switch (header[1]) {
    case 'Delete':
      return { ok: true, value: { type: 'delete', path: path.value, line }, next: index + 1 };
    case 'Add': {
      let next = index + 1;
      let content = '';
      while (next < end && lines[next]!.startsWith('+')) {
        content += `${lines[next]!.slice(1)}\n`;
        next += 1;
      }
      return { ok: true, value: { type: 'add', path: path.value, content, line }, next };
    }
    default:
      return parseUpdate(lines, index, end, path.value);
  }
}

function explainBadHeader(text: string): string {
  if (text.trim() === '') {
    return 'blank lines cannot appear between file sections, and every line of an added file starts with "+" (write "+" alone for an empty line)';
  }
  if (/^[-+ @]/.test(text)) {
    return 'this diff line is not inside an "*** Update File: <path>" section';
  }
  return 'expected "*** Add File: <path>", "*** Delete File: <path>" or "*** Update File: <path>"';
}

function checkPath(
  raw: string,
  line: number,
): { ok: true; value: string } | { ok: false; error: PatchError } {
  const path = raw.trim();
  if (path === '') return fail('missing_path', `line ${line}: the header has no path`, { line });
  const checked = checkWorkspacePath(path);
  if (checked.ok) return { ok: true, value: checked.path };
  const message = `line ${line}: ${checked.message}`;
  if (checked.kind === 'escape') {
    return { ok: false, error: { kind: 'escape', code: checked.code, message, path, line } };
  }
  return fail(checked.code, message, { line, path });
}

function parseUpdate(lines: readonly string[], index: number, end: number, path: string): Step<FileOp> {
  let next = index + 1;
  let moveTo: string | null = null;
  const move = next < end ? MOVE_TO.exec(lines[next]!.trim()) : null;
  if (move) {
    const destination = checkPath(move[1]!, next + 1);
    if (!destination.ok) return destination;
    moveTo = destination.value;
    next += 1;
  }
  const hunks: Hunk[] = [];
  while (next < end) {
    const text = lines[next]!;
    if (text.trim() === '') {
      next += 1;
      continue;
    }
    if (text.startsWith('*')) break;
    const step = parseHunk(lines, next, end, path, hunks.length === 0);
    if (!step.ok) return step;
    hunks.push(step.value);
    next = step.next;
  }
  if (hunks.length === 0 && moveTo === null) {
    return fail(
      'empty_update',
      `line ${index + 1}: "*** Update File: ${path}" has no changes; follow it with at least one "@@" hunk of " ", "-" and "+" lines`,
      { line: index + 1, path },
    );
  }
  return { ok: true, value: { type: 'update', path, moveTo, hunks, line: index + 1 }, next };
}

function parseHunk(
  lines: readonly string[],
  start: number,
  end: number,
  path: string,
  isFirst: boolean,
): Step<Hunk> {
  const contexts: string[] = [];
  let index = start;
  for (; index < end; index++) {
    const text = lines[index]!.trimEnd();
    if (text === '@@') continue;
    if (!text.startsWith('@@ ')) break;
    contexts.push(text.slice(3));
  }
  if (index === start && !isFirst) {
    return fail(
      'invalid_hunk_line',
      `line ${start + 1} in "${path}": ${show(lines[start]!)} is not a hunk line; every line of a hunk starts with " " (context), "-" (removed) or "+" (added), and a new hunk starts with "@@"`,
      { line: start + 1, path },
    );
  }
  const hunk: Hunk = { contexts, oldLines: [], newLines: [], endOfFile: false, line: start + 1 };
  const bodyStart = index;
  for (; index < end; index++) {
    const text = lines[index]!;
    if (text.trimEnd() === END_OF_FILE) {
      if (index === bodyStart) break;
      hunk.endOfFile = true;
      index += 1;
      break;
    }
    const marker = text.charAt(0);
    const body = text.slice(1);
    if (marker === '' || marker === ' ') {
      hunk.oldLines.push(body);
      hunk.newLines.push(body);
    } else if (marker === '-') {
      hunk.oldLines.push(body);
    } else if (marker === '+') {
      hunk.newLines.push(body);
    } else {
      break;
    }
  }
  if (index === bodyStart) {
    const atEnd = index >= end || lines[index]!.trimEnd() === END_OF_FILE || lines[index]!.startsWith('*');
    return atEnd
      ? fail('empty_hunk', `line ${start + 1} in "${path}": the hunk has no lines`, { line: start + 1, path })
      : fail(
          'invalid_hunk_line',
          `line ${index + 1} in "${path}": unexpected line ${show(lines[index]!)} in a hunk; every line starts with " " (context), "-" (removed) or "+" (added)`,
          { line: index + 1, path },
        );
  }
  return { ok: true, value: hunk, next: index };
}
