import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../../src/model/providers/index.js';
import { providerKinds } from '../../../src/model/providers/types.js';

describe('adapterFor', () => {
  it('returns the adapter of each provider kind', () => {
    expect(providerKinds.map((kind) => adapterFor(kind).provider)).toEqual([
      'OPENAI_CHAT',
      'OPENAI_RESPONSES',
      'ANTHROPIC',
      'GEMINI',
    ]);
  });
});
