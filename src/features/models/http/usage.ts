import { isJsonObject, type JsonObject } from '../../../core/json.js';
import type { WireFormat } from '../connection-input.js';

/**
 * Tokens one answer cost. `outputTokens` includes the reasoning ones in every format (Gemini
 * reports its thoughts apart; they are added); `reasoningTokens` is null where the format does not
 * tell them apart (Anthropic).
 */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number | null;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const objectAt = (value: unknown, key: string): JsonObject =>
  isJsonObject(value) && isJsonObject(value[key]) ? value[key] : {};
const optionalCount = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** Null when the response carries no usage at all (a local server that does not count). */
export function usageOf(format: WireFormat, response: unknown): ModelUsage | null {
  if (!isJsonObject(response)) return null;
  switch (format) {
    case 'OPENAI_CHAT': {
      if (!isJsonObject(response.usage)) return null;
      const u = response.usage;
      return {
        inputTokens: count(u.prompt_tokens),
        outputTokens: count(u.completion_tokens),
        reasoningTokens: optionalCount(objectAt(u, 'completion_tokens_details').reasoning_tokens),
      };
    }
    case 'OPENAI_RESPONSES': {
      if (!isJsonObject(response.usage)) return null;
      const u = response.usage;
      return {
        inputTokens: count(u.input_tokens),
        outputTokens: count(u.output_tokens),
        reasoningTokens: optionalCount(objectAt(u, 'output_tokens_details').reasoning_tokens),
      };
    }
    case 'ANTHROPIC': {
      if (!isJsonObject(response.usage)) return null;
      const u = response.usage;
      // Cached prompt tokens are counted apart from input_tokens; the prompt is all three.
      return {
        inputTokens:
          count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens),
        outputTokens: count(u.output_tokens),
        reasoningTokens: null,
      };
    }
    case 'GEMINI': {
      if (!isJsonObject(response.usageMetadata)) return null;
      const u = response.usageMetadata;
      const thoughts = optionalCount(u.thoughtsTokenCount);
      return {
        inputTokens: count(u.promptTokenCount),
        outputTokens: count(u.candidatesTokenCount) + (thoughts ?? 0),
        reasoningTokens: thoughts,
      };
    }
  }
}
