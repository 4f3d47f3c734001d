import { isJsonObject, type JsonObject } from '../../../core/json.js';
import type { WireFormat } from '../connection-input.js';

/** What watchers see while an answer streams; the stored turn is built from the whole stream. */
export type ModelDelta =
  | { kind: 'text'; text: string }
  | { kind: 'tool_call_start'; index: number; id: string | null; name: string }
  | { kind: 'tool_call_arguments'; index: number; delta: string }
  /** The attempt failed and another follows after `delayMs`: what streamed so far is void. */
  | { kind: 'retry'; attempt: number; delayMs: number; status: number | null; reason: string };

const list = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const index = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

function openAiChatDeltas(event: JsonObject): ModelDelta[] {
  const deltas: ModelDelta[] = [];
  for (const choice of list(event.choices)) {
    if (index(choice.index, 0) !== 0) continue;
    const delta = isJsonObject(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string' && delta.content !== '')
      deltas.push({ kind: 'text', text: delta.content });
    for (const [position, piece] of list(delta.tool_calls).entries()) {
      const at = index(piece.index, position);
      const fn = isJsonObject(piece.function) ? piece.function : {};
      if (typeof fn.name === 'string' && fn.name !== '')
        deltas.push({
          kind: 'tool_call_start',
          index: at,
          id: typeof piece.id === 'string' ? piece.id : null,
          name: fn.name,
        });
      if (typeof fn.arguments === 'string' && fn.arguments !== '')
        deltas.push({ kind: 'tool_call_arguments', index: at, delta: fn.arguments });
    }
  }
  return deltas;
}

function responsesDeltas(event: JsonObject): ModelDelta[] {
  const at = index(event.output_index, 0);
  if (event.type === 'response.output_text.delta' && typeof event.delta === 'string')
    return [{ kind: 'text', text: event.delta }];
  if (
    event.type === 'response.output_item.added' &&
    isJsonObject(event.item) &&
    event.item.type === 'function_call'
  )
    return [
      {
        kind: 'tool_call_start',
        index: at,
        id: typeof event.item.call_id === 'string' ? event.item.call_id : null,
        name: typeof event.item.name === 'string' ? event.item.name : '',
      },
    ];
  if (event.type === 'response.function_call_arguments.delta' && typeof event.delta === 'string')
    return [{ kind: 'tool_call_arguments', index: at, delta: event.delta }];
  return [];
}

function anthropicDeltas(event: JsonObject): ModelDelta[] {
  const at = index(event.index, 0);
  if (event.type === 'content_block_start' && isJsonObject(event.content_block)) {
    const block = event.content_block;
    if (block.type === 'tool_use')
      return [
        {
          kind: 'tool_call_start',
          index: at,
          id: typeof block.id === 'string' ? block.id : null,
          name: typeof block.name === 'string' ? block.name : '',
        },
      ];
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
      return [{ kind: 'text', text: block.text }];
  }
  if (event.type === 'content_block_delta' && isJsonObject(event.delta)) {
    const delta = event.delta;
    if (delta.type === 'text_delta' && typeof delta.text === 'string')
      return [{ kind: 'text', text: delta.text }];
    if (
      delta.type === 'input_json_delta' &&
      typeof delta.partial_json === 'string' &&
      delta.partial_json !== ''
    )
      return [{ kind: 'tool_call_arguments', index: at, delta: delta.partial_json }];
  }
  return [];
}

/** Gemini streams whole parts: a call arrives with its arguments, numbered by its place in the stream. */
function geminiDeltas(event: JsonObject, state: StreamState): ModelDelta[] {
  const deltas: ModelDelta[] = [];
  const candidate = list(event.candidates)[0];
  const content = isJsonObject(candidate?.content) ? candidate.content : {};
  for (const part of list(content.parts)) {
    if (typeof part.text === 'string' && part.text !== '' && part.thought !== true)
      deltas.push({ kind: 'text', text: part.text });
    const call = isJsonObject(part.functionCall) ? part.functionCall : null;
    if (call !== null && typeof call.name === 'string') {
      const at = state.geminiCalls++;
      deltas.push({
        kind: 'tool_call_start',
        index: at,
        id: typeof call.id === 'string' ? call.id : null,
        name: call.name,
      });
      if (call.args !== undefined)
        deltas.push({ kind: 'tool_call_arguments', index: at, delta: JSON.stringify(call.args) });
    }
  }
  return deltas;
}

export interface StreamState {
  /** The stream reached its last event (without one, it was cut off). */
  complete: boolean;
  geminiCalls: number;
}

export const newStreamState = (): StreamState => ({ complete: false, geminiCalls: 0 });

/** A failure the stream itself reports: Anthropic's `error` event, Responses' `error` or `response.failed`, Gemini's error object. */
export function streamError(event: JsonObject): JsonObject | null {
  if (event.type === 'error') return isJsonObject(event.error) ? event.error : event;
  if (event.type === 'response.failed') {
    const response = isJsonObject(event.response) ? event.response : {};
    return isJsonObject(response.error) ? response.error : { type: 'response.failed' };
  }
  return event.type === undefined && isJsonObject(event.error) ? event.error : null;
}

/** Notes whether this event ends the stream in its format, and what it adds for watchers. */
export function readStreamEvent(format: WireFormat, event: JsonObject, state: StreamState): ModelDelta[] {
  switch (format) {
    case 'OPENAI_CHAT':
      if (list(event.choices).some((c) => typeof c.finish_reason === 'string')) state.complete = true;
      return openAiChatDeltas(event);
    case 'OPENAI_RESPONSES':
      if (event.type === 'response.completed' || event.type === 'response.incomplete') state.complete = true;
      return responsesDeltas(event);
    case 'ANTHROPIC':
      if (event.type === 'message_stop') state.complete = true;
      return anthropicDeltas(event);
    case 'GEMINI':
      if (list(event.candidates).some((c) => typeof c.finishReason === 'string')) state.complete = true;
      return geminiDeltas(event, state);
  }
}
