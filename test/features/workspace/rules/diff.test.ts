import { describe, expect, it } from 'vitest';
import {
  compareManifests,
  type DiffSide,
  unifiedFileDiff,
} from '../../../../src/features/workspace/rules/diff.js';

const side = (text: string): DiffSide => ({ sha256: `h:${text}`, text });

/** Applies a unified diff of one file to `before`, to check that the diff says exactly what changed. */
function applyUnified(before: string, diff: string): string {
  const old = before.split(/(?<=\n)/).filter((l) => l !== '');
  const out: string[] = [];
  let at = 0;
  const lines = diff.split('\n').slice(2, -1);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(line);
    const noNewline = lines[i + 1] === '\\ No newline at end of file';
    const body = `${line.slice(1)}${noNewline ? '' : '\n'}`;
    if (header) {
      const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
      out.push(...old.slice(at, start));
      at = start;
    } else if (line.startsWith(' ')) {
      out.push(body);
      at += 1;
    } else if (line.startsWith('-')) at += 1;
    else if (line.startsWith('+')) out.push(body);
  }
  return [...out, ...old.slice(at)].join('');
}

describe('unifiedFileDiff', () => {
  it('shows a change with three lines of context and merges close changes into one hunk', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const after = 'a\nB\nc\nd\ne\nf\nG\nh\n';
    expect(unifiedFileDiff('x.txt', side(before), side(after))).toBe(
      '--- a/x.txt\n+++ b/x.txt\n@@ -1,8 +1,8 @@\n a\n-b\n+B\n c\n d\n e\n f\n-g\n+G\n h\n',
    );
  });

  it('splits distant changes into separate hunks', () => {
    const before = `${Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n')}\n`;
    const after = before.replace('l1\n', 'L1\n').replace('l18\n', 'L18\n');
    expect(unifiedFileDiff('x.txt', side(before), side(after))).toBe(
      '--- a/x.txt\n+++ b/x.txt\n' +
        '@@ -1,5 +1,5 @@\n l0\n-l1\n+L1\n l2\n l3\n l4\n' +
        '@@ -16,5 +16,5 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n',
    );
  });

  it('diffs an added and a deleted file against /dev/null', () => {
    expect(unifiedFileDiff('n.md', null, side('x\ny\n'))).toBe(
      '--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,2 @@\n+x\n+y\n',
    );
    expect(unifiedFileDiff('n.md', side('x\n'), null)).toBe(
      '--- a/n.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n',
    );
  });

  it('marks a missing final newline', () => {
    expect(unifiedFileDiff('x', side('a\n'), side('a'))).toBe(
      '--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n',
    );
  });

  it('says only that binary files differ', () => {
    expect(unifiedFileDiff('img.png', { sha256: '1', text: null }, { sha256: '2', text: null })).toBe(
      'Binary files a/img.png and b/img.png differ\n',
    );
  });

  it('is empty for identical content', () => {
    expect(unifiedFileDiff('x', side('same\n'), side('same\n'))).toBe('');
  });

  it('reconstructs the new text from the old for many kinds of edits', () => {
    const cases: Array<[string, string]> = [
      ['a\nb\nc\n', 'c\nb\na\n'],
      ['', 'new\nfile'],
      ['1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n', '0\n1\n3\n4\n5\nfive\n7\n8\n10\n11\n'],
      ['x\ny', 'x\ny\nz\n'],
      ['same\n'.repeat(30), `${'same\n'.repeat(15)}changed\n${'same\n'.repeat(15)}`],
    ];
    for (const [before, after] of cases) {
      expect(applyUnified(before, unifiedFileDiff('f', side(before), side(after)))).toBe(after);
    }
  });

  it('still gives a correct diff past the edit-distance limit, as a wholesale replacement', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}\n`).join('');
    const after = Array.from({ length: 3000 }, (_, i) => `new ${i}\n`).join('');
    const diff = unifiedFileDiff('big', side(before), side(after));
    expect(diff.startsWith('--- a/big\n+++ b/big\n@@ -1,3000 +1,3000 @@\n-old 0\n')).toBe(true);
    expect(applyUnified(before, diff)).toBe(after);
  });
});

describe('compareManifests', () => {
  it('lists added, modified and deleted files in path order and skips unchanged ones', () => {
    const before = new Map([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
    const after = new Map([
      ['b', '2'],
      ['c', '4'],
      ['d', '5'],
    ]);
    expect(compareManifests(before, after)).toEqual([
      { path: 'a', change: 'deleted', oldSha256: '1', newSha256: null },
      { path: 'c', change: 'modified', oldSha256: '3', newSha256: '4' },
      { path: 'd', change: 'added', oldSha256: null, newSha256: '5' },
    ]);
  });
});
