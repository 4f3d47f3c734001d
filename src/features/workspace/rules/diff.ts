/**
 * Unified diffs (the `git diff` text format) between two versions of a workspace: per file, the
 * line edits found by Myers' algorithm, shown with three lines of context.
 */

/** One side of a file's change: absent (null), or its hash and text (null text: not UTF-8). */
export type DiffSide = { sha256: string; text: string | null } | null;

export const fileChangeKinds = ['added', 'modified', 'deleted'] as const;
export type FileChangeKind = (typeof fileChangeKinds)[number];

export interface FileDiff {
  path: string;
  change: FileChangeKind;
  oldSha256: string | null;
  newSha256: string | null;
}

interface Edit {
  kind: ' ' | '-' | '+';
  line: string;
}

const CONTEXT = 3;
// Past this many edits the quadratic trace costs more than a readable diff is worth; the file
// is then shown as replaced wholesale, which is still a correct diff.
const MAX_EDIT_DISTANCE = 2000;

/** Lines with their terminators, so that a missing final newline is a difference. */
function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines[lines.length - 1] === '' ? lines.slice(0, -1) : lines;
}

function myers(a: readonly string[], b: readonly string[]): Edit[] | null {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = limit + 1;
  // v[offset + k]: the furthest x reached on diagonal k = x - y.
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace);
    }
  }
  return null;
}

/** Walks the snapshots back from the end; trace[d] holds diagonals -d-1..d+1 before step d. */
function backtrack(a: readonly string[], b: readonly string[], trace: readonly Int32Array[]): Edit[] {
  const edits: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const window = trace[d]!;
    const at = (diagonal: number) => window[diagonal + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = down ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      edits.push({ kind: ' ', line: a[x - 1]! });
      x -= 1;
      y -= 1;
    }
    if (d > 0) edits.push(down ? { kind: '+', line: b[y - 1]! } : { kind: '-', line: a[x - 1]! });
    x = previousX;
    y = previousY;
  }
  return edits.reverse();
}

function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const oldMiddle = a.slice(start, endA);
  const newMiddle = b.slice(start, endB);
  const middle = myers(oldMiddle, newMiddle) ?? [
    ...oldMiddle.map((line): Edit => ({ kind: '-', line })),
    ...newMiddle.map((line): Edit => ({ kind: '+', line })),
  ];
  const same = (line: string): Edit => ({ kind: ' ', line });
  return [...a.slice(0, start).map(same), ...middle, ...a.slice(endA).map(same)];
}

function renderLine(edit: Edit): string {
  return edit.line.endsWith('\n')
    ? `${edit.kind}${edit.line}`
    : `${edit.kind}${edit.line}\n\\ No newline at end of file\n`;
}

function hunks(edits: readonly Edit[]): string {
  const changed = edits.flatMap((edit, i) => (edit.kind === ' ' ? [] : [i]));
  let out = '';
  let g = 0;
  while (g < changed.length) {
    let end = g;
    while (end + 1 < changed.length && changed[end + 1]! - changed[end]! <= 2 * CONTEXT + 1) end += 1;
    const from = Math.max(0, changed[g]! - CONTEXT);
    const to = Math.min(edits.length, changed[end]! + CONTEXT + 1);
    let oldLine = 1;
    let newLine = 1;
    for (const edit of edits.slice(0, from)) {
      if (edit.kind !== '+') oldLine += 1;
      if (edit.kind !== '-') newLine += 1;
    }
    const slice = edits.slice(from, to);
    const oldCount = slice.filter((e) => e.kind !== '+').length;
    const newCount = slice.filter((e) => e.kind !== '-').length;
    const oldStart = oldCount === 0 ? oldLine - 1 : oldLine;
    const newStart = newCount === 0 ? newLine - 1 : newLine;
    out += `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n`;
    out += slice.map(renderLine).join('');
    g = end + 1;
  }
  return out;
}

/** The unified diff of one file; '' when both sides are the same. */
export function unifiedFileDiff(path: string, before: DiffSide, after: DiffSide): string {
  if (before?.sha256 === after?.sha256) return '';
  const oldName = before ? `a/${path}` : '/dev/null';
  const newName = after ? `b/${path}` : '/dev/null';
  if (before?.text === null || after?.text === null) {
    return `Binary files ${oldName} and ${newName} differ\n`;
  }
  const edits = diffLines(splitLines(before?.text ?? ''), splitLines(after?.text ?? ''));
  return `--- ${oldName}\n+++ ${newName}\n${hunks(edits)}`;
}

/** Which files differ between two manifests (path → sha256), in path order. */
export function compareManifests(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): FileDiff[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const diffs: FileDiff[] = [];
  for (const path of paths) {
    const oldSha256 = before.get(path) ?? null;
    const newSha256 = after.get(path) ?? null;
    if (oldSha256 === newSha256) continue;
    const change = oldSha256 === null ? 'added' : newSha256 === null ? 'deleted' : 'modified';
    diffs.push({ path, change, oldSha256, newSha256 });
  }
  return diffs;
}
