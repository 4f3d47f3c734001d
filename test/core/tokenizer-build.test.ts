import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { describe, expect, test } from 'vitest';
import { tokenizer, warmTokenizer } from '../../src/core/tokenizer-build.js';

const ranks = createRequire(import.meta.url)('js-tiktoken/ranks/o200k_base') as TiktokenBPE;
const sample =
  'Agent Tool System: tools, approvals — journal positions. Größe, 日本語のテキスト, emoji 😀👍, code `x => x ** 2`, ' +
  'base64 QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=, numbers 1234567890.';

/** js-tiktoken's own build, and its table of each rank's bytes (a public field marked internal). */
const reference = new Tiktoken(ranks);
const bytesOf = (encoder: Tiktoken) => (encoder as unknown as { textMap: Map<number, Uint8Array> }).textMap;

describe('the o200k encoder built a slice at a time', () => {
  test('a count made while the warm-up is under way builds the rest at once, as js-tiktoken builds it', async () => {
    const warming = warmTokenizer();
    await nextTurn();
    await nextTurn();
    const tokens = tokenizer().encode(sample, [], []);
    expect(tokens).toEqual(reference.encode(sample, [], []));
    expect(tokenizer().decode(tokens)).toBe(sample);
    await warming;
  });

  test('every rank of the reference encoder is in the built one, with the same bytes', () => {
    const built = bytesOf(tokenizer());
    expect(built.size).toBe(bytesOf(reference).size);
    const differing = [...bytesOf(reference)].filter(
      ([rank, bytes]) => Buffer.compare(Buffer.from(bytes), Buffer.from(built.get(rank) ?? [])) !== 0,
    );
    expect(differing).toEqual([]);
  });
});
