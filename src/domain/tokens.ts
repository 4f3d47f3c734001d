import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

let encoder: Tiktoken | null = null;

/** o200k_base (GPT-4o family) is loaded once, on first use: building it takes about a second. */
function tokenizer(): Tiktoken {
  encoder ??= new Tiktoken(o200k);
  return encoder;
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : tokenizer().encode(text).length;
}

/** The longest prefix of `text` that fits in `maxTokens` tokens. */
export function truncateToTokens(text: string, maxTokens: number): string {
  const tokens = tokenizer().encode(text);
  if (tokens.length <= maxTokens) return text;
  return tokenizer().decode(tokens.slice(0, maxTokens));
}

/** The longest suffix of `text` that fits in `maxTokens` tokens. */
export function lastTokens(text: string, maxTokens: number): string {
  const tokens = tokenizer().encode(text);
  if (tokens.length <= maxTokens) return text;
  return maxTokens <= 0 ? '' : tokenizer().decode(tokens.slice(tokens.length - maxTokens));
}
