import { describe, expect, test } from 'vitest';
import { asPatch, jsonEqual, jsonPatch, patchLines } from '../../console/src/logic/json-patch.js';

describe('jsonPatch (the diff shown before an edited approval)', () => {
  test('equal arguments give an empty patch, whatever the key order', () => {
    expect(jsonPatch({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toEqual([]);
  });

  test('a changed value is one replace at its pointer', () => {
    expect(jsonPatch({ path: 'output/a.md', text: 'x' }, { path: 'output/drafts/a.md', text: 'x' })).toEqual([
      { op: 'replace', path: '/path', value: 'output/drafts/a.md' },
    ]);
  });

  test('a removed key comes before an added one; nested objects are compared key by key', () => {
    expect(jsonPatch({ old: 1, opts: { a: 1, b: 2 } }, { opts: { a: 1, b: 3 }, added: true })).toEqual([
      { op: 'remove', path: '/old' },
      { op: 'replace', path: '/opts/b', value: 3 },
      { op: 'add', path: '/added', value: true },
    ]);
  });

  test('a shorter array loses its tail from the end, a longer one gains it in order', () => {
    expect(jsonPatch({ l: [1, 2, 3] }, { l: [1] })).toEqual([
      { op: 'remove', path: '/l/2' },
      { op: 'remove', path: '/l/1' },
    ]);
    expect(jsonPatch({ l: [1] }, { l: [9, 2, 3] })).toEqual([
      { op: 'replace', path: '/l/0', value: 9 },
      { op: 'add', path: '/l/1', value: 2 },
      { op: 'add', path: '/l/2', value: 3 },
    ]);
  });

  test('a change of type is a replace of the whole value', () => {
    expect(jsonPatch({ v: [1] }, { v: { 0: 1 } })).toEqual([{ op: 'replace', path: '/v', value: { 0: 1 } }]);
  });

  test('keys with / and ~ are escaped as RFC 6901 says', () => {
    expect(jsonPatch({}, { 'a/b': 1, 'c~d': 2 })).toEqual([
      { op: 'add', path: '/a~1b', value: 1 },
      { op: 'add', path: '/c~0d', value: 2 },
    ]);
  });

  test('jsonEqual tells a missing key from one that is undefined-free but different', () => {
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual([1, 2], [1, 2])).toBe(true);
    expect(jsonEqual(null, {})).toBe(false);
  });
});

describe('patchLines', () => {
  test('a replace shows the old value removed and the new one added; add and remove one line each', () => {
    const original = { path: 'a.md', gone: 1 };
    const ops = jsonPatch(original, { path: 'drafts/a.md', extra: 'x/y' });
    expect(patchLines(original, ops)).toEqual([
      { kind: 'del', text: '- /gone: 1' },
      { kind: 'del', text: '- /path: "a.md"' },
      { kind: 'add', text: '+ /path: "drafts/a.md"' },
      { kind: 'add', text: '+ /extra: "x/y"' },
    ]);
  });

  test('the old value is read through escaped pointers', () => {
    const original = { 'a/b': 1 };
    expect(patchLines(original, [{ op: 'replace', path: '/a~1b', value: 2 }])).toEqual([
      { kind: 'del', text: '- /a~1b: 1' },
      { kind: 'add', text: '+ /a~1b: 2' },
    ]);
  });
});

describe('asPatch (the server’s ArgumentsEdit.diff)', () => {
  test('keeps add, remove and replace operations and drops anything else', () => {
    expect(
      asPatch([
        { op: 'replace', path: '/a', value: 1 },
        { op: 'move', from: '/a', path: '/b' },
        'junk',
        { op: 'remove', path: '/c' },
      ]),
    ).toEqual([
      { op: 'replace', path: '/a', value: 1 },
      { op: 'remove', path: '/c' },
    ]);
    expect(asPatch({ op: 'add' })).toEqual([]);
  });
});
