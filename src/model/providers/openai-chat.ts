import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import {
  argumentsJson,
  decodeArgumentString,
  records,
  resolveCall,
  str,
  syntheticCallId,
  turnCalls,
  turnText,
} from './common.js';
import { prepareTools } from './declarations.js';
import { nativeNameOf, OPENAI_NAME_RULES, type ToolNameMap } from './names.js';
import { answerCalls } from './tool-results.js';
import type {
  AssistantTurn,
  CallOutcome,
  DeclarationOptions,
  ParsedResponse,
  ProviderAdapter,
  ToolDeclarations,
  TurnPart,
} from './types.js';

const PROVIDER = 'OPENAI_CHAT';

/**
 * Fields of a response message that a request accepts back. `reasoning_content` is DeepSeek's, which
 * it wants replayed within a tool-calling turn; response-only fields such as `annotations` are not.
 */
const REPLAYED_FIELDS = ['reasoning_content', 'refusal', 'tool_calls'] as const;

function replayableMessage(message: JsonObject): JsonObject {
  const out: JsonObject = { role: 'assistant', content: message.content ?? null };
  for (const field of REPLAYED_FIELDS) {
    if (message[field] !== undefined && message[field] !== null) out[field] = message[field];
  }
  return out;
}

function toolDeclarations(specs: readonly ToolSpec[], options: DeclarationOptions = {}): ToolDeclarations {
  const prepared = prepareTools(specs, {
    rules: OPENAI_NAME_RULES,
    loose: 'openai',
    strict: (options.strict ?? true) ? 'openai-strict' : null,
  });
  return {
    tools: prepared.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.nativeName,
        description: tool.description,
        parameters: tool.schema,
        strict: tool.strict,
      },
    })),
    names: prepared.names,
    report: prepared.report,
  };
}

function parseResponse(body: unknown, names: ToolNameMap): ParsedResponse {
  const root = isJsonObject(body) ? body : {};
  const choice = records(root.choices)[0];
  const message = isJsonObject(choice?.message) ? choice.message : {};
  const calls = records(message.tool_calls).map((toolCall, position) => {
    const fn = isJsonObject(toolCall.function) ? toolCall.function : {};
    const nativeName = str(fn.name) ?? '';
    const rawArguments = str(fn.arguments) ?? '';
    const args = decodeArgumentString(rawArguments);
    const id =
      str(toolCall.id) ?? syntheticCallId([PROVIDER, root.id ?? null, position, nativeName, rawArguments]);
    return resolveCall({ provider: PROVIDER, names, id, nativeName, args });
  });
  const parts: TurnPart[] = [];
  const content = str(message.content);
  if (content !== undefined && content !== '') parts.push({ kind: 'text', text: content });
  for (const parsed of calls) parts.push({ kind: 'tool_call', call: parsed.call });
  return {
    calls,
    assistantTurn: { provider: PROVIDER, native: [replayableMessage(message)], parts },
  };
}

interface ChoiceDraft {
  role: string;
  content: string | null;
  reasoning: string | null;
  refusal: string | null;
  toolCalls: Map<number, { id?: string; type: string; name: string; arguments: string }>;
  finishReason: unknown;
}

function append(current: string | null, delta: unknown): string | null {
  return typeof delta === 'string' ? (current ?? '') + delta : current;
}

function assembleStream(chunks: readonly unknown[]): unknown {
  let head: JsonObject | null = null;
  let usage: unknown;
  const choices = new Map<number, ChoiceDraft>();
  for (const chunk of records(chunks)) {
    head ??= chunk;
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    for (const choice of records(chunk.choices)) {
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let draft = choices.get(index);
      if (draft === undefined) {
        draft = {
          role: 'assistant',
          content: null,
          reasoning: null,
          refusal: null,
          toolCalls: new Map(),
          finishReason: null,
        };
        choices.set(index, draft);
      }
      const delta = isJsonObject(choice.delta) ? choice.delta : {};
      draft.role = str(delta.role) ?? draft.role;
      draft.content = append(draft.content, delta.content);
      draft.reasoning = append(draft.reasoning, delta.reasoning_content);
      draft.refusal = append(draft.refusal, delta.refusal);
      for (const piece of records(delta.tool_calls)) {
        const at = typeof piece.index === 'number' ? piece.index : draft.toolCalls.size;
        const call = draft.toolCalls.get(at) ?? { type: 'function', name: '', arguments: '' };
        const fn = isJsonObject(piece.function) ? piece.function : {};
        if (typeof piece.id === 'string') call.id = piece.id;
        if (typeof piece.type === 'string') call.type = piece.type;
        call.name += str(fn.name) ?? '';
        call.arguments += str(fn.arguments) ?? '';
        draft.toolCalls.set(at, call);
      }
      if (choice.finish_reason !== undefined && choice.finish_reason !== null)
        draft.finishReason = choice.finish_reason;
    }
  }
  const body: JsonObject = {
    id: head?.id,
    object: 'chat.completion',
    created: head?.created,
    model: head?.model,
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, draft]) => {
        const message: JsonObject = { role: draft.role, content: draft.content };
        if (draft.reasoning !== null) message.reasoning_content = draft.reasoning;
        if (draft.refusal !== null) message.refusal = draft.refusal;
        if (draft.toolCalls.size > 0) {
          message.tool_calls = [...draft.toolCalls.entries()]
            .sort(([a], [b]) => a - b)
            .map(([, call]) => ({
              ...(call.id === undefined ? {} : { id: call.id }),
              type: call.type,
              function: { name: call.name, arguments: call.arguments },
            }));
        }
        return { index, message, finish_reason: draft.finishReason };
      }),
  };
  if (head?.system_fingerprint !== undefined) body.system_fingerprint = head.system_fingerprint;
  if (usage !== undefined) body.usage = usage;
  return body;
}

function renderAssistantTurn(turn: AssistantTurn, names: ToolNameMap): unknown[] {
  if (turn.provider === PROVIDER) return turn.native;
  const text = turnText(turn.parts);
  const toolCalls = turnCalls(turn.parts).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: nativeNameOf(names, call.name), arguments: argumentsJson(call) },
  }));
  const message: JsonObject = { role: 'assistant', content: text === '' ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return [message];
}

function toolResultMessages(turn: AssistantTurn, outcomes: readonly CallOutcome[]): unknown[] {
  return answerCalls(turn, outcomes).map(({ call, answer }) => ({
    role: 'tool',
    tool_call_id: call.id,
    content: answer.text,
  }));
}

export const openAiChatAdapter: ProviderAdapter = {
  provider: PROVIDER,
  nameRules: OPENAI_NAME_RULES,
  toolDeclarations,
  parseResponse,
  assembleStream,
  renderAssistantTurn,
  toolResultMessages,
};
