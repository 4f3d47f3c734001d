import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  findSection,
  findSections,
  readChars,
  readLines,
  readSection,
  splitSections,
} from '../../../../src/features/skill/rules/sections.js';

const SKILLS = new URL('../../../fixtures/skills/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, SKILLS), 'utf8');

const DOC = [
  '---', // 1
  'name: demo', // 2
  '# not a heading: front matter', // 3
  '---', // 4
  'Intro text.', // 5
  '# Guide', // 6
  'Welcome.', // 7
  '## Setup', // 8
  '```bash', // 9
  '# install deps', // 10
  'npm ci', // 11
  '```', // 12
  '### Linux ###', // 13
  'apt install', // 14
  '## Usage', // 15
  '~~~~', // 16
  '## not a heading', // 17
  '~~~', // 18
  '~~~~', // 19
  '   ## Indented heading', // 20
  '    ## code block, not a heading', // 21
  '#hashtag', // 22
  '# Appendix', // 23
  '## Setup', // 24
  'Other setup.', // 25
].join('\n');

describe('splitSections', () => {
  const sections = splitSections(DOC);

  it('finds ATX headings outside code fences and front matter', () => {
    expect(sections.map((s) => [s.level, s.title, s.startLine, s.endLine])).toEqual([
      [1, 'Guide', 6, 22],
      [2, 'Setup', 8, 14],
      [3, 'Linux', 13, 14],
      [2, 'Usage', 15, 19],
      [2, 'Indented heading', 20, 22],
      [1, 'Appendix', 23, 25],
      [2, 'Setup', 24, 25],
    ]);
  });

  it('gives each section its heading path and character range', () => {
    const linux = sections[2];
    expect(linux?.path).toEqual(['Guide', 'Setup', 'Linux']);
    expect(DOC.slice(linux?.start, linux?.end)).toBe('### Linux ###\napt install\n');
    const last = sections.at(-1);
    expect(last?.end).toBe(DOC.length);
  });

  it('ignores shell comments inside fences in a real skill (skill-creator)', () => {
    const titles = splitSections(read('skill-creator/SKILL.md')).map((s) => s.title);
    expect(titles).not.toContain('Report structure');
    expect(titles).not.toContain('[Title]');
    expect(titles).toContain('Writing Style');
    expect(titles[0]).toBe('Skill Creator');
  });

  it('ignores Python comments inside fences (mcp-builder reference)', () => {
    const sections = splitSections(read('mcp-builder/reference/python_mcp_server.md'));
    expect(sections.map((s) => s.title)).not.toContain('Initialize the MCP server');
    expect(sections.every((s) => s.level >= 1 && s.level <= 6)).toBe(true);
  });

  it('accepts a heading indented by two spaces (internal-comms example)', () => {
    const [first] = splitSections(read('internal-comms/examples/general-comms.md'));
    expect(first).toMatchObject({ level: 2, title: 'Instructions', startLine: 1 });
  });

  it('returns no sections for a document without headings', () => {
    expect(splitSections('just text\n')).toEqual([]);
    expect(splitSections('')).toEqual([]);
  });
});

describe('findSection', () => {
  const sections = splitSections(DOC);

  it('matches a heading case-insensitively and exactly (not a prefix)', () => {
    expect(findSection(DOC, 'usage')?.startLine).toBe(15);
    expect(findSection(DOC, 'Usag')).toBeNull();
  });

  it('returns every match in document order for an ambiguous title', () => {
    expect(findSections(sections, 'Setup').map((s) => s.startLine)).toEqual([8, 24]);
  });

  it('resolves a path like "Parent > Child"', () => {
    expect(findSection(DOC, 'Appendix > Setup')?.startLine).toBe(24);
    expect(findSection(DOC, 'guide > setup > linux')?.startLine).toBe(13);
    expect(findSection(DOC, 'Appendix > Linux')).toBeNull();
  });

  it('prefers exact-case matches when several match', () => {
    const doc = '# Notes\n## notes\n';
    expect(findSections(splitSections(doc), 'notes').map((s) => s.startLine)).toEqual([2]);
    expect(findSections(splitSections(doc), 'NOTES').map((s) => s.startLine)).toEqual([1, 2]);
  });

  it('ignores backticks and extra spaces, as in claude-api headings', () => {
    const doc = read('claude-api/SKILL.md');
    const fable = findSection(
      doc,
      'Current Models (cached: 2026-06-24) > Claude Fable 5 (claude-fable-5) — most capable widely released model',
    );
    expect(fable).toMatchObject({ level: 3, startLine: 199 });
  });

  it('falls back to the whole query when a heading contains ">"', () => {
    expect(findSection('# Input -> Output\ntext\n', 'Input -> Output')?.startLine).toBe(1);
  });
});

describe('bounded reading', () => {
  const text = 'line one\nline two\nline three\n';

  it('reads a line range with its offsets', () => {
    expect(readLines(text, 2, 3)).toEqual({
      text: 'line two\nline three\n',
      start: 9,
      end: 29,
      startLine: 2,
      endLine: 3,
      totalChars: 29,
      totalLines: 3,
      truncated: false,
      nextChar: null,
      nextLine: null,
    });
  });

  it('clamps line ranges to the document', () => {
    expect(readLines(text, 0, 99).text).toBe(text);
    expect(readLines(text, 3).text).toBe('line three\n');
  });

  it('cuts at a line end within the budget and says where to continue', () => {
    const slice = readLines(text, 1, 3, 15);
    expect(slice).toMatchObject({
      text: 'line one\n',
      truncated: true,
      nextChar: 9,
      nextLine: 2,
      endLine: 1,
    });
    expect(readLines(text, slice.nextLine ?? 0, 3, 15).text).toBe('line two\n');
  });

  it('cuts mid-line when keeping whole lines would waste most of the budget', () => {
    const slice = readChars('ab\ncdefghijklmnop', 0, undefined, 10);
    expect(slice).toMatchObject({ text: 'ab\ncdefghi', truncated: true, nextChar: 10, nextLine: null });
  });

  it('never splits a surrogate pair', () => {
    const slice = readChars('ab😀cd', 0, undefined, 3);
    expect(slice.text).toBe('ab');
    expect(slice.nextChar).toBe(2);
  });

  it('reads a character range', () => {
    expect(readChars(text, 5, 13)).toMatchObject({
      text: 'one\nline',
      startLine: 1,
      endLine: 2,
      truncated: false,
    });
  });

  it('reads a whole section within a budget', () => {
    const doc = read('skill-creator/SKILL.md');
    const section = findSection(doc, 'Writing Style');
    if (!section) throw new Error('section not found');
    const whole = readSection(doc, section);
    expect(whole.text.startsWith('### Writing Style\n')).toBe(true);
    expect(whole.truncated).toBe(false);
    const cut = readSection(doc, section, 200);
    expect(cut.truncated).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(200);
    expect(whole.text.startsWith(cut.text)).toBe(true);
  });
});
