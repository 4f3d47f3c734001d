import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { argumentsJson, decodeArgumentString, records, resolveCall, str, syntheticCallId } from './common.js';
import { prepareTools } from './declarations.js';
import { nativeNameOf, OPENAI_NAME_RULES, type ToolNameMap } from './names.js';
import { answerCalls } from './tool-results.js';
import type {
  AssistantTurn,
  CallOutcome,
  DeclarationOptions,
  ParsedCall,
  ParsedResponse,
  ProviderAdapter,
  ToolDeclarations,
  TurnPart,
} from './types.js';

const PROVIDER = 'OPENAI_RESPONSES';

function toolDeclarations(specs: readonly ToolSpec[], options: DeclarationOptions = {}): ToolDeclarations {
  const prepared = prepareTools(specs, {
    rules: OPENAI_NAME_RULES,
    loose: 'openai',
    strict: (options.strict ?? true) ? 'openai-strict' : null,
  });
  return {
    tools: prepared.tools.map((tool) => ({
      type: 'function',
      name: tool.nativeName,
      description: tool.description,
      parameters: tool.schema,
      strict: tool.strict,
    })),
    names: prepared.names,
    report: prepared.report,
  };
}

function messageText(item: JsonObject): string {
  return records(item.content)
    .flatMap((part) => (part.type === 'output_text' && typeof part.text === 'string' ? [part.text] : []))
    .join('');
}

/**
 * The output items are kept in order and replayed as input items: that keeps each `reasoning` item
 * (with its `encrypted_content`) directly before the item it led to. Item types this adapter does
 * not know, such as `program`, are carried along the same way.
 */
function parseResponse(body: unknown, names: ToolNameMap): ParsedResponse {
  const root = isJsonObject(body) ? body : {};
  const output = records(root.output);
  const calls: ParsedCall[] = [];
  const parts: TurnPart[] = [];
  output.forEach((item, position) => {
    if (item.type === 'function_call') {
      const nativeName = str(item.name) ?? '';
      const rawArguments = str(item.arguments) ?? '';
      const metadata: JsonObject = {};
      if (typeof item.id === 'string') metadata.itemId = item.id;
      if (item.caller !== undefined) metadata.caller = item.caller;
      const parsed = resolveCall({
        provider: PROVIDER,
        names,
        id:
          str(item.call_id) ??
          syntheticCallId([PROVIDER, root.id ?? null, position, nativeName, rawArguments]),
        nativeName,
        args: decodeArgumentString(rawArguments),
        metadata,
      });
      calls.push(parsed);
      parts.push({ kind: 'tool_call', call: parsed.call });
    } else if (item.type === 'message') {
      const text = messageText(item);
      if (text !== '') parts.push({ kind: 'text', text });
    }
  });
  return { calls, assistantTurn: { provider: PROVIDER, native: output, parts } };
}

const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * The terminal event carries the whole response and is authoritative (its reasoning
 * `encrypted_content` can differ from the one in `output_item.done`). Without it, the response is
 * rebuilt from the items seen, with argument deltas for calls that never finished.
 */
function assembleStream(chunks: readonly unknown[]): unknown {
  let response: JsonObject = {};
  const items = new Map<number, JsonObject>();
  const pendingArguments = new Map<number, string>();
  for (const event of records(chunks)) {
    const type = str(event.type) ?? '';
    const at = typeof event.output_index === 'number' ? event.output_index : -1;
    if (TERMINAL_EVENTS.has(type) && isJsonObject(event.response)) return event.response;
    if ((type === 'response.created' || type === 'response.in_progress') && isJsonObject(event.response)) {
      response = event.response;
    } else if (
      (type === 'response.output_item.added' || type === 'response.output_item.done') &&
      isJsonObject(event.item)
    ) {
      items.set(at, event.item);
      if (type === 'response.output_item.done') pendingArguments.delete(at);
    } else if (type === 'response.function_call_arguments.delta' && typeof event.delta === 'string') {
      pendingArguments.set(at, (pendingArguments.get(at) ?? '') + event.delta);
    }
  }
  // Without the response's own events or a single item this is no Responses stream, so there is no
  // turn in it: the body says so instead of inventing an empty output.
  if (items.size === 0 && Object.keys(response).length === 0) return response;
  const output = [...items.entries()]
    .sort(([a], [b]) => a - b)
    .map(([at, item]) => {
      const partial = pendingArguments.get(at);
      return partial === undefined ? item : { ...item, arguments: partial };
    });
  return { ...response, output };
}

function renderAssistantTurn(turn: AssistantTurn, names: ToolNameMap): unknown[] {
  if (turn.provider === PROVIDER) return turn.native;
  return turn.parts.map((part) =>
    part.kind === 'text'
      ? { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: part.text }] }
      : {
          type: 'function_call',
          call_id: part.call.id,
          name: nativeNameOf(names, part.call.name),
          arguments: argumentsJson(part.call),
        },
  );
}

function toolResultMessages(turn: AssistantTurn, outcomes: readonly CallOutcome[]): unknown[] {
  return answerCalls(turn, outcomes).map(({ call, answer }) => ({
    type: 'function_call_output',
    call_id: call.id,
    output: answer.text,
  }));
}

export const openAiResponsesAdapter: ProviderAdapter = {
  provider: PROVIDER,
  nameRules: OPENAI_NAME_RULES,
  toolDeclarations,
  parseResponse,
  assembleStream,
  renderAssistantTurn,
  toolResultMessages,
};
