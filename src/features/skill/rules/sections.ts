/**
 * Markdown sectioning and bounded reading for `skill.read`.
 *
 * Sections come from ATX headings (`#` to `######`, up to three spaces of indentation, optional
 * closing `#`s). Lines inside fenced code blocks (``` or ~~~, any indentation so fences inside list
 * items count, closed by a fence of the same character at least as long) are never headings: shell
 * comments in code samples start with `#` too. A leading YAML front matter block is skipped for the
 * same reason. Setext headings (`===`/`---` underlines) are not recognised.
 *
 * Positions: lines are 1-based; character offsets are 0-based UTF-16 code-unit offsets into the
 * string, end-exclusive, so `text.slice(start, end)` is the range. A section runs from its heading
 * line to just before the next heading of the same or a higher level, so it includes its
 * subsections.
 */

export interface MarkdownSection {
  level: number;
  title: string;
  /** Titles of the enclosing sections and this one, outermost first. */
  path: string[];
  /** Line of the heading. */
  startLine: number;
  /** Last line of the section, subsections included. */
  endLine: number;
  start: number;
  end: number;
}

export interface TextSlice {
  text: string;
  start: number;
  end: number;
  startLine: number;
  endLine: number;
  totalChars: number;
  totalLines: number;
  /** The requested range was longer than the character budget. */
  truncated: boolean;
  /** Where to continue reading after a truncated slice. */
  nextChar: number | null;
  /** The line to continue from, when the cut fell on a line boundary. */
  nextLine: number | null;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const FENCE = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const FRONT_MATTER_OPEN = '---';
const FRONT_MATTER_CLOSE = new Set(['---', '...']);

interface LineIndex {
  /** Offset of the first character of each line; one extra entry holds the text length. */
  starts: number[];
  count: number;
}

function indexLines(text: string): LineIndex {
  const starts = [0];
  for (let offset = text.indexOf('\n'); offset >= 0; offset = text.indexOf('\n', offset + 1)) {
    starts.push(offset + 1);
  }
  // A final newline ends the last line; it does not open an empty one.
  const count = starts.at(-1) === text.length && text.length > 0 ? starts.length - 1 : starts.length;
  if (count === starts.length) starts.push(text.length);
  return { starts, count };
}

function lineText(text: string, index: LineIndex, line: number): string {
  return text.slice(index.starts[line - 1], index.starts[line]).replace(/\r?\n$/, '');
}

function frontMatterEnd(text: string, index: LineIndex): number {
  if (lineText(text, index, 1).trimEnd() !== FRONT_MATTER_OPEN) return 0;
  for (let line = 2; line <= index.count; line++) {
    if (FRONT_MATTER_CLOSE.has(lineText(text, index, line).trimEnd())) return line;
  }
  return 0;
}

function headingTitle(raw: string): string {
  return raw.replace(/(?:^|[ \t]+)#+$/, '').trim();
}

export function splitSections(markdown: string): MarkdownSection[] {
  const index = indexLines(markdown);
  const headings: Array<{ level: number; title: string; line: number }> = [];
  let fence: { char: string; length: number } | null = null;
  for (let line = frontMatterEnd(markdown, index) + 1; line <= index.count; line++) {
    const content = lineText(markdown, index, line);
    const fenceMatch = FENCE.exec(content);
    if (fence) {
      const marker = fenceMatch?.[1];
      if (marker?.[0] === fence.char && marker.length >= fence.length && fenceMatch?.[2]?.trim() === '') {
        fence = null;
      }
      continue;
    }
    if (fenceMatch?.[1] && !(fenceMatch[1][0] === '`' && fenceMatch[2]?.includes('`'))) {
      fence = { char: fenceMatch[1][0] ?? '`', length: fenceMatch[1].length };
      continue;
    }
    const heading = HEADING.exec(content);
    if (heading?.[1])
      headings.push({ level: heading[1].length, title: headingTitle(heading[2] ?? ''), line });
  }

  const stack: Array<{ level: number; title: string }> = [];
  return headings.map((heading, position) => {
    while (stack.length > 0 && (stack.at(-1)?.level ?? 0) >= heading.level) stack.pop();
    stack.push(heading);
    const next = headings.slice(position + 1).find((later) => later.level <= heading.level);
    const endLine = next ? next.line - 1 : index.count;
    return {
      level: heading.level,
      title: heading.title,
      path: stack.map((open) => open.title),
      startLine: heading.line,
      endLine,
      start: index.starts[heading.line - 1] ?? 0,
      end: index.starts[endLine] ?? markdown.length,
    };
  });
}

function normalizeTitle(title: string): string {
  return title.replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Sections whose heading matches `query` exactly, ignoring case, backticks and repeated spaces.
 * `Parent > Child` matches a section titled Child whose enclosing section is Parent: the parts must
 * be the last entries of its heading path. When several match and some match with the exact case,
 * only those are returned. Results are in document order.
 */
export function findSections(sections: readonly MarkdownSection[], query: string): MarkdownSection[] {
  const asPath = matchPath(sections, query.split('>'));
  // A heading may itself contain '>' ("Input -> Output"), so fall back to the whole query as a title.
  return asPath.length > 0 || !query.includes('>') ? asPath : matchPath(sections, [query]);
}

function matchPath(sections: readonly MarkdownSection[], rawParts: string[]): MarkdownSection[] {
  const parts = rawParts.map((part) => part.trim());
  const wanted = parts.map(normalizeTitle);
  const endsWith = (section: MarkdownSection, target: string[], normalize: (title: string) => string) =>
    section.path.length >= target.length &&
    target.every(
      (part, i) => normalize(section.path[section.path.length - target.length + i] ?? '') === part,
    );
  const matches = sections.filter((section) => endsWith(section, wanted, normalizeTitle));
  if (matches.length <= 1) return matches;
  const exact = matches.filter((section) => endsWith(section, parts, (title) => title.trim()));
  return exact.length > 0 ? exact : matches;
}

export function findSection(markdown: string, query: string): MarkdownSection | null {
  return findSections(splitSections(markdown), query)[0] ?? null;
}

function lineOf(index: LineIndex, offset: number): number {
  let low = 0;
  let high = index.count - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((index.starts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

function slice(
  text: string,
  index: LineIndex,
  start: number,
  end: number,
  maxChars: number | undefined,
): TextSlice {
  let cut = end;
  if (maxChars !== undefined && end - start > maxChars) {
    cut = start + Math.max(maxChars, 0);
    const lastNewline = text.lastIndexOf('\n', cut - 1);
    // Prefer ending on a whole line, unless that would waste more than half of the budget.
    if (lastNewline >= start && lastNewline + 1 - start >= maxChars / 2) cut = lastNewline + 1;
    else if (cut > start && /[\uD800-\uDBFF]/.test(text.charAt(cut - 1))) cut -= 1;
  }
  const truncated = cut < end;
  const cutLine = lineOf(index, cut);
  return {
    text: text.slice(start, cut),
    start,
    end: cut,
    startLine: lineOf(index, start),
    endLine: lineOf(index, Math.max(cut - 1, start)),
    totalChars: text.length,
    totalLines: index.count,
    truncated,
    nextChar: truncated ? cut : null,
    nextLine: truncated && index.starts[cutLine - 1] === cut ? cutLine : null,
  };
}

/** Lines `fromLine`..`toLine` (inclusive, clamped), cut to `maxChars` at a line end when possible. */
export function readLines(text: string, fromLine: number, toLine?: number, maxChars?: number): TextSlice {
  const index = indexLines(text);
  const first = Math.min(Math.max(Math.trunc(fromLine), 1), index.count);
  const last = Math.min(Math.max(Math.trunc(toLine ?? index.count), first), index.count);
  return slice(text, index, index.starts[first - 1] ?? 0, index.starts[last] ?? text.length, maxChars);
}

/** Characters `from`..`to` (end-exclusive, clamped), cut to `maxChars` at a line end when possible. */
export function readChars(text: string, from: number, to?: number, maxChars?: number): TextSlice {
  const index = indexLines(text);
  const start = Math.min(Math.max(Math.trunc(from), 0), text.length);
  const end = Math.min(Math.max(Math.trunc(to ?? text.length), start), text.length);
  return slice(text, index, start, end, maxChars);
}

export function readSection(text: string, section: MarkdownSection, maxChars?: number): TextSlice {
  return readChars(text, section.start, section.end, maxChars);
}
