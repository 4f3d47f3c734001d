import { anthropicAdapter } from './anthropic.js';
import { geminiAdapter } from './gemini.js';
import { openAiChatAdapter } from './openai-chat.js';
import { openAiResponsesAdapter } from './openai-responses.js';
import type { ProviderAdapter, ProviderKind } from './types.js';

export { assertProviderResponse, type ResponseProblem } from './response-shapes.js';

const ADAPTERS: Readonly<Record<ProviderKind, ProviderAdapter>> = {
  OPENAI_CHAT: openAiChatAdapter,
  OPENAI_RESPONSES: openAiResponsesAdapter,
  ANTHROPIC: anthropicAdapter,
  GEMINI: geminiAdapter,
};

export function adapterFor(provider: ProviderKind): ProviderAdapter {
  return ADAPTERS[provider];
}
