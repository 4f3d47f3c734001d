import { seekSequence } from './seek.js';
import type { Hunk } from './types.js';

/**
 * Applies the hunks of one `*** Update File:` to its content, with Codex's line semantics: the
 * file is split on `\n` without its final newline, hunks are located in order (each search
 * starts where the previous hunk ended), and a non-empty result always ends with a newline.
 * One deliberate difference: Codex only adds that newline when the last line is not blank, so
 * it silently drops a trailing blank line; here every line keeps its terminator.
 */

export interface HunkMiss {
  code: 'context_not_found' | 'lines_not_found';
  /** 1-based index of the hunk within the file. */
  hunk: number;
  line: number;
  expected: string[];
  /** 1-based file line the search started from. */
  searchedFrom: number;
  /** 1-based file line where the lines do occur, when that is before `searchedFrom`. */
  foundEarlierAt: number | null;
}

export type UpdateResult = { ok: true; content: string } | { ok: false; miss: HunkMiss };

interface Replacement {
  start: number;
  deleteCount: number;
  insert: readonly string[];
}

export function updateContent(original: string, hunks: readonly Hunk[]): UpdateResult {
  const lines = original.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const replacements: Replacement[] = [];
  let cursor = 0;
  for (const [position, hunk] of hunks.entries()) {
    const miss = (code: HunkMiss['code'], expected: string[]): UpdateResult => {
      const earlier = cursor > 0 ? seekSequence(lines, expected, 0, false) : null;
      return {
        ok: false,
        miss: {
          code,
          hunk: position + 1,
          line: hunk.line,
          expected,
          searchedFrom: cursor + 1,
          foundEarlierAt: earlier && earlier.index < cursor ? earlier.index + 1 : null,
        },
      };
    };
    for (const context of hunk.contexts) {
      const found = seekSequence(lines, [context], cursor, false);
      if (!found) return miss('context_not_found', [context]);
      cursor = found.index + 1;
    }
    if (hunk.oldLines.length === 0) {
      // Codex appends a pure addition at the end of the file (before one trailing blank line),
      // whatever its `@@` context says; the context must still exist.
      const at = lines.at(-1) === '' ? lines.length - 1 : lines.length;
      replacements.push({ start: at, deleteCount: 0, insert: hunk.newLines });
      continue;
    }
    let pattern: readonly string[] = hunk.oldLines;
    let insert: readonly string[] = hunk.newLines;
    let found = seekSequence(lines, pattern, cursor, hunk.endOfFile);
    if (!found && pattern.at(-1) === '') {
      // A trailing empty context line usually stands for the file's final newline, which the
      // split above removed.
      pattern = pattern.slice(0, -1);
      if (insert.at(-1) === '') insert = insert.slice(0, -1);
      found = seekSequence(lines, pattern, cursor, hunk.endOfFile);
    }
    if (!found) return miss('lines_not_found', hunk.oldLines);
    replacements.push({ start: found.index, deleteCount: pattern.length, insert });
    cursor = found.index + pattern.length;
  }
  const result = splice(lines, replacements);
  return { ok: true, content: result.length === 0 ? '' : `${result.join('\n')}\n` };
}

/**
 * Replacements never overlap except for pure additions, which delete nothing, so one forward
 * pass over the sorted list rebuilds the file without shifting indices.
 */
function splice(lines: readonly string[], replacements: Replacement[]): string[] {
  const sorted = replacements.toSorted((a, b) => a.start - b.start);
  const out: string[] = [];
  let next = 0;
  for (const { start, deleteCount, insert } of sorted) {
    while (next < start) out.push(lines[next++]!);
    for (const line of insert) out.push(line);
    next += deleteCount;
  }
  while (next < lines.length) out.push(lines[next++]!);
  return out;
}
