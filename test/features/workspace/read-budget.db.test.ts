import { describe, expect } from 'vitest';
import { workspaceTest as test } from '../../support/fixtures.js';
import { call, output, writeFile } from '../../support/workspace.js';

const lines = (count: number, width: number) =>
  Array.from(
    { length: count },
    (_, i) => `${String(i + 1).padStart(4, '0')} ${'x'.repeat(width - 6)}\n`,
  ).join('');

describe('read_file budget', () => {
  test('maxBytes cuts at a line boundary and the next read continues exactly there', async ({
    services,
    run,
  }) => {
    const text = lines(10, 20);
    await writeFile(services, run.id, 'output/big.txt', text);
    const first = await call(services, run.id, 'read_file', { path: 'output/big.txt', maxBytes: 70 });
    expect(output(first)).toMatchObject({
      content: text.slice(0, 60),
      startLine: 1,
      endLine: 3,
      truncated: true,
      next: { startLine: 4 },
    });
    expect(first.result!.content[0]).toMatchObject({
      text: expect.stringContaining('Cut to fit the read budget: continue with startLine 4.'),
    });
    let all = output(first).content as string;
    let next = output(first).next as { startLine: number } | null;
    while (next) {
      const page = await call(services, run.id, 'read_file', {
        path: 'output/big.txt',
        maxBytes: 70,
        ...next,
      });
      all += output(page).content;
      next = output(page).next;
    }
    expect(all).toBe(text);
  });

  test('a line longer than the budget is cut inside the line and continues by character', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/wide.txt', `${'é'.repeat(100)}\nend\n`);
    const first = await call(services, run.id, 'read_file', { path: 'output/wide.txt', maxBytes: 64 });
    expect(output(first)).toMatchObject({
      content: 'é'.repeat(32),
      startChar: 0,
      endChar: 32,
      truncated: true,
      next: { startChar: 32 },
    });
    const rest = await call(services, run.id, 'read_file', {
      path: 'output/wide.txt',
      startChar: 32,
      maxBytes: 200,
    });
    expect(output(rest)).toMatchObject({ content: `${'é'.repeat(68)}\nend\n`, truncated: false, next: null });
  });

  test('character ranges count code points, so an emoji is one character', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/emoji.txt', 'a😀b\nc');
    const read = await call(services, run.id, 'read_file', {
      path: 'output/emoji.txt',
      startChar: 1,
      endChar: 3,
    });
    expect(output(read)).toMatchObject({
      content: '😀b',
      startChar: 1,
      endChar: 3,
      startLine: 1,
      endLine: 1,
      totalChars: 5,
      totalLines: 2,
    });
  });

  test('maxTokens cuts the content to that many tokens', async ({ services, run }) => {
    const text = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    await writeFile(services, run.id, 'output/words.txt', text);
    const read = await call(services, run.id, 'read_file', { path: 'output/words.txt', maxTokens: 20 });
    const { countTokens } = await import('../../../src/core/tokens.js');
    const content = output(read).content as string;
    expect(countTokens(content)).toBeLessThanOrEqual(20);
    expect(countTokens(text.slice(0, content.length + 1))).toBeGreaterThan(20);
    expect(output(read)).toMatchObject({ truncated: true, next: { startChar: content.length } });
  });

  test('without a budget a read returns at most 16000 bytes', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/huge.txt', lines(1000, 100));
    const read = await call(services, run.id, 'read_file', { path: 'output/huge.txt' });
    expect(output(read)).toMatchObject({ endLine: 160, truncated: true, next: { startLine: 161 } });
    expect(Buffer.byteLength(output(read).content)).toBe(16_000);
  });

  test('a range past the end, or lines mixed with characters, is a recoverable invalid_range', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/short.txt', 'one\ntwo\n');
    const past = await call(services, run.id, 'read_file', { path: 'output/short.txt', startLine: 3 });
    expect(past.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'invalid_range',
      message: 'startLine 3 is past the end of the file, which has 2 lines ("output/short.txt")',
    });
    const mixed = await call(services, run.id, 'read_file', {
      path: 'output/short.txt',
      startLine: 1,
      startChar: 0,
    });
    expect(mixed.error).toMatchObject({ code: 'invalid_range' });
  });
});
