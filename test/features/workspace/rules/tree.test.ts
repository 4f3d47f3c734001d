import { describe, expect, it } from 'vitest';
import { ancestorsOf, PathIndex, treeLevel } from '../../../../src/features/workspace/rules/tree.js';

describe('PathIndex', () => {
  const index = new PathIndex(['output/a/b.md', 'output/file.txt']);

  it('allows new files beside others and the replacement of an existing file', () => {
    expect(index.conflict('output/a/c.md')).toBeNull();
    expect(index.conflict('output/file.txt')).toBeNull();
    expect(index.conflict('output/a2')).toBeNull();
  });

  it('refuses a file named like a folder', () => {
    expect(index.conflict('output/a')).toEqual({
      code: 'is_directory',
      path: 'output/a',
      blocker: 'output/a/b.md',
      message:
        '"output/a" is a folder (it holds "output/a/b.md"), so it cannot also be a file; choose another name',
    });
  });

  it('refuses a file beneath a file', () => {
    expect(index.conflict('output/file.txt/x')).toMatchObject({
      code: 'parent_is_file',
      blocker: 'output/file.txt',
    });
  });

  it('sees files added after it was built', () => {
    const grown = new PathIndex();
    grown.add('x/y');
    expect(grown.has('x/y')).toBe(true);
    expect(grown.conflict('x')).toMatchObject({ code: 'is_directory' });
  });
});

describe('ancestorsOf', () => {
  it('lists the folders holding a path, outermost first', () => {
    expect(ancestorsOf('a/b/c.md')).toEqual(['a', 'a/b']);
    expect(ancestorsOf('top.md')).toEqual([]);
  });
});

describe('treeLevel', () => {
  const files = [
    { path: 'output/a.md', size: 3 },
    { path: 'output/sub/b.md', size: 4 },
    { path: 'output/sub/deep/c.md', size: 5 },
    { path: 'scratch/x', size: 1 },
  ];

  it('lists the top level as folders with their total size and file count', () => {
    expect(treeLevel(files, '')).toEqual([
      { path: 'output', name: 'output', kind: 'folder', size: 12, fileCount: 3 },
      { path: 'scratch', name: 'scratch', kind: 'folder', size: 1, fileCount: 1 },
    ]);
  });

  it('lists the files and folders directly inside a folder', () => {
    expect(treeLevel(files, 'output')).toEqual([
      { path: 'output/a.md', name: 'a.md', kind: 'file', size: 3, fileCount: 1 },
      { path: 'output/sub', name: 'sub', kind: 'folder', size: 9, fileCount: 2 },
    ]);
  });
});
