import { describe, expect, it } from 'vitest';
import {
  conditionHolds,
  conditionOf,
  describeCondition,
  globMatches,
  type PolicyCondition,
  policyConditionInputSchema,
  policyConditionsInputSchema,
} from '../../src/core/policy-conditions.js';
import { checkWorkspacePath } from '../../src/features/workspace/rules/paths.js';

const glob = (value: string, over: Partial<PolicyCondition> = {}): PolicyCondition =>
  ({ pointer: '/path', path: true, operator: 'glob', value, ...over }) as PolicyCondition;
const holds = (condition: PolicyCondition, args: unknown) =>
  conditionHolds(condition, args, checkWorkspacePath);

describe('path conditions compare the canonical path (workspace path rules)', () => {
  const drafts = glob('output/drafts/**');
  const output = glob('output/**');
  it.each([
    ['output/drafts/a.md', drafts, true],
    ['output/drafts/deep/er/a.md', drafts, true],
    ['./output/drafts/a.md', drafts, true],
    ['output//drafts/./a.md', drafts, true],
    ['output/x/../drafts/a.md', drafts, true],
    ['notes/a.md', drafts, false],
    ['output/draftsx/a.md', drafts, false],
    ['output/../secret', output, false],
    ['output/../output/x', output, true],
    ['output/drafts/../../secret/a.md', drafts, false],
    ['./output/x', output, true],
    ['/output/x', output, false],
    ['/etc/passwd', glob('**'), false],
    ['../output/x', output, false],
    ['output\\x', output, false],
    ['output\\..\\secret', glob('**'), false],
    ['C:/output/x', glob('**'), false],
    ['output/%2e%2e/secret', glob('**'), false],
    ['https://example.com/output/x', glob('**'), false],
    ['', glob('**'), false],
    ['output', output, true],
  ])('%j against %j is %s', (path, condition, expected) => {
    expect(holds(condition, { path })).toBe(expected);
  });

  it('prefix, equals and in see the canonical form too', () => {
    const prefix = glob('output/', { operator: 'prefix', value: 'output/' } as Partial<PolicyCondition>);
    const equals = {
      pointer: '/path',
      path: true,
      operator: 'equals',
      value: 'output/a.md',
    } satisfies PolicyCondition;
    const within = {
      pointer: '/path',
      path: true,
      operator: 'in',
      value: ['a.md', 'output/a.md'],
    } satisfies PolicyCondition;
    expect(holds(prefix, { path: './output/a.md' })).toBe(true);
    expect(holds(prefix, { path: 'output/../a.md' })).toBe(false);
    expect(holds(equals, { path: 'output/./a.md' })).toBe(true);
    expect(holds(within, { path: 'output//a.md' })).toBe(true);
    expect(holds(within, { path: '/a.md' })).toBe(false);
  });

  it('without the path rules a path condition holds for nothing', () => {
    expect(conditionHolds(glob('**'), { path: 'output/a.md' })).toBe(false);
  });

  it('the same text without `path` is compared as written', () => {
    expect(holds(glob('output/**', { path: false }), { path: 'output/../secret' })).toBe(true);
  });
});

describe('each operator, missing fields and type mismatches (never throw)', () => {
  const c = (operator: string, value: unknown, pointer = '/v'): PolicyCondition =>
    ({ pointer, path: false, operator, value }) as PolicyCondition;
  it.each([
    ['glob', 'a*', { v: 'abc' }, true],
    ['glob', 'a*', { v: 'b' }, false],
    ['glob', 'a*', { v: 7 }, false],
    ['prefix', 'https://', { v: 'https://x' }, true],
    ['prefix', 'https://', { v: 'http://x' }, false],
    ['prefix', 'https://', { v: ['https://x'] }, false],
    ['equals', 'create', { v: 'create' }, true],
    ['equals', 'create', { v: 'replace' }, false],
    ['equals', 1, { v: '1' }, false],
    ['equals', 1, { v: 1 }, true],
    ['equals', true, { v: 'true' }, false],
    ['equals', 'x', { v: null }, false],
    ['in', ['create', 'append'], { v: 'append' }, true],
    ['in', ['create', 'append'], { v: 'replace' }, false],
    ['in', [1, 2], { v: '2' }, false],
    ['in', ['a'], { v: { a: 1 } }, false],
    ['maxLength', 3, { v: 'abc' }, true],
    ['maxLength', 3, { v: 'abcd' }, false],
    ['maxLength', 2, { v: '😀😀' }, true],
    ['maxLength', 3, { v: 123 }, false],
    ['maxLength', 3, { v: ['a'] }, false],
    ['equals', 'x', {}, false],
    ['maxLength', 10, null, false],
    ['equals', 'x', 'x', false],
  ])('%s %j on %j is %s', (operator, value, args, expected) => {
    expect(conditionHolds(c(operator, value), args)).toBe(expected);
  });

  it.each([
    ['/a/b', { a: { b: 'x' } }, true],
    ['/a/0', { a: ['x'] }, true],
    ['/a/1', { a: ['x'] }, false],
    ['/a/01', { a: ['y', 'x'] }, false],
    ['/a/-', { a: ['x'] }, false],
    ['/a~1b', { 'a/b': 'x' }, true],
    ['/a~0b', { 'a~b': 'x' }, true],
    ['/a/b', { a: 'x' }, false],
    ['/a/b', { a: null }, false],
    ['/constructor', {}, false],
    ['/__proto__', {}, false],
    ['/a/length', { a: 'xy' }, false],
  ])('pointer %s into %j finds "x": %s', (pointer, args, expected) => {
    expect(conditionHolds(c('equals', 'x', pointer), args)).toBe(expected);
  });
});

describe('globMatches', () => {
  it.each([
    ['output/**', 'output/a/b.md', true],
    ['output/**', 'output', true],
    ['output/**', 'outputs/a', false],
    ['output/*.md', 'output/a.md', true],
    ['output/*.md', 'output/a/b.md', false],
    ['output/?.md', 'output/a.md', true],
    ['output/?.md', 'output/ab.md', false],
    ['**/*.md', 'a/b/c.md', true],
    ['**/*.md', 'c.md', true],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a*', 'a*b', true],
    ['*b*', 'aaa', false],
    ['[ab]', 'a', false],
    ['[ab]', '[ab]', true],
    ['{a,b}', 'a', false],
    ['ü?', 'ü😀', true],
  ])('%s against %s is %s', (pattern, value, expected) => {
    expect(globMatches(pattern, value)).toBe(expected);
  });

  it('stays fast on a pattern and value built to make a backtracking matcher blow up', () => {
    const started = Date.now();
    expect(globMatches('*a*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(4000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a value longer than 4096 characters matches no glob', () => {
    expect(globMatches('**', 'a'.repeat(4097))).toBe(false);
  });
});

describe('condition input', () => {
  const parse = (input: unknown) => policyConditionInputSchema.safeParse(input);
  const message = (input: unknown) =>
    parse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

  it('stores one operator and its operand', () => {
    const parsed = parse({ pointer: '/path', path: true, glob: 'output/drafts/**' });
    expect(conditionOf(parsed.data!)).toEqual({
      pointer: '/path',
      path: true,
      operator: 'glob',
      value: 'output/drafts/**',
    });
    expect(conditionOf(parse({ pointer: '/n', maxLength: 0 }).data!)).toEqual({
      pointer: '/n',
      path: false,
      operator: 'maxLength',
      value: 0,
    });
  });

  it.each([
    [
      { pointer: 'path', glob: 'x' },
      ['pointer: must be a JSON pointer (RFC 6901) into the arguments, such as /path'],
    ],
    [
      { pointer: '', glob: 'x' },
      ['pointer: must be a JSON pointer (RFC 6901) into the arguments, such as /path'],
    ],
    [
      { pointer: '/a~2', glob: 'x' },
      ['pointer: must be a JSON pointer (RFC 6901) into the arguments, such as /path'],
    ],
    [{ pointer: '/path' }, [': needs exactly one of glob, prefix, equals, in, maxLength (got none)']],
    [
      { pointer: '/path', glob: 'x', prefix: 'y' },
      [': needs exactly one of glob, prefix, equals, in, maxLength (got glob, prefix)'],
    ],
    [{ pointer: '/path', path: true, equals: 3 }, ['equals: a path condition compares paths: give strings']],
    [{ pointer: '/path', path: true, in: ['a', 1] }, ['in: a path condition compares paths: give strings']],
    [{ pointer: '/p', in: [] }, ['in: Too small: expected array to have >=1 items']],
  ])('refuses %j', (input, expected) => {
    expect(message(input)).toEqual(expected);
  });

  it('bounds sizes: strings, `in` values and the number of conditions', () => {
    expect(parse({ pointer: `/${'a'.repeat(1024)}`, glob: 'x' }).success).toBe(false);
    expect(parse({ pointer: '/p', glob: 'x'.repeat(1025) }).success).toBe(false);
    expect(parse({ pointer: '/p', in: Array.from({ length: 101 }, (_, i) => i) }).success).toBe(false);
    expect(parse({ pointer: '/p', in: ['y'.repeat(1025)] }).success).toBe(false);
    expect(parse({ pointer: '/p', in: Array.from({ length: 100 }, (_, i) => i) }).success).toBe(true);
    const many = Array.from({ length: 17 }, () => ({ pointer: '/p', equals: 'x' }));
    expect(policyConditionsInputSchema.safeParse(many).error?.issues[0]?.message).toBe(
      'at most 16 conditions per rule',
    );
  });

  it('describes a condition the way reasons name it, its operand cut short', () => {
    expect(describeCondition(glob('output/drafts/**'))).toBe('/path (path) glob "output/drafts/**"');
    const long = describeCondition({
      pointer: '/v',
      path: false,
      operator: 'equals',
      value: 'x'.repeat(500),
    });
    expect(long.length).toBeLessThan(140);
  });
});
