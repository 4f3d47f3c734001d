import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { JsonSchema, ToolSpec } from '../../core/tool-spec.js';
import {
  argumentsObject,
  decodeArgumentObject,
  decodeArgumentString,
  records,
  resolveCall,
  str,
  syntheticCallId,
} from './common.js';
import { prepareTools } from './declarations.js';
import { ANTHROPIC_NAME_RULES, nativeNameOf, type ToolNameMap } from './names.js';
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

const PROVIDER = 'ANTHROPIC';

/** Anthropic's documented per-request limits for strict tools. */
const STRICT_LIMITS = { tools: 20, optionalParameters: 24, unionParameters: 16 };

function countParameters(node: unknown, counts: { optional: number; unions: number }): void {
  if (!isJsonObject(node)) return;
  if (isJsonObject(node.properties)) {
    const required = Array.isArray(node.required) ? node.required : [];
    for (const [name, schema] of Object.entries(node.properties)) {
      if (!required.includes(name)) counts.optional += 1;
      if (isJsonObject(schema) && (Array.isArray(schema.anyOf) || Array.isArray(schema.type)))
        counts.unions += 1;
      countParameters(schema, counts);
    }
  }
  countParameters(node.items, counts);
  if (Array.isArray(node.anyOf)) for (const branch of node.anyOf) countParameters(branch, counts);
  for (const defs of [node.$defs, node.definitions]) {
    if (isJsonObject(defs)) for (const schema of Object.values(defs)) countParameters(schema, counts);
  }
}

/** Tools past a limit fall back to non-strict, in declaration order. */
function strictBudget(): (schema: JsonSchema) => string | null {
  const used = { tools: 0, optional: 0, unions: 0 };
  return (schema) => {
    const counts = { optional: 0, unions: 0 };
    countParameters(schema, counts);
    if (used.tools + 1 > STRICT_LIMITS.tools) {
      return `more than ${STRICT_LIMITS.tools} strict tools in one request`;
    }
    if (used.optional + counts.optional > STRICT_LIMITS.optionalParameters) {
      return `more than ${STRICT_LIMITS.optionalParameters} optional parameters across strict tools`;
    }
    if (used.unions + counts.unions > STRICT_LIMITS.unionParameters) {
      return `more than ${STRICT_LIMITS.unionParameters} union-typed parameters across strict tools`;
    }
    used.tools += 1;
    used.optional += counts.optional;
    used.unions += counts.unions;
    return null;
  };
}

function toolDeclarations(specs: readonly ToolSpec[], options: DeclarationOptions = {}): ToolDeclarations {
  const prepared = prepareTools(specs, {
    rules: ANTHROPIC_NAME_RULES,
    loose: 'anthropic',
    strict: options.strict === true ? 'anthropic-strict' : null,
    strictBudget: strictBudget(),
  });
  return {
    tools: prepared.tools.map((tool) => ({
      name: tool.nativeName,
      description: tool.description,
      input_schema: tool.schema,
      ...(tool.strict ? { strict: true } : {}),
    })),
    names: prepared.names,
    report: prepared.report,
  };
}

/**
 * Content blocks are replayed as they came, so `thinking` / `redacted_thinking` keep their
 * signatures and stay in front of the `tool_use` they led to. The one exception is a `tool_use`
 * whose streamed input never became an object: the API requires an object there.
 */
function parseResponse(body: unknown, names: ToolNameMap): ParsedResponse {
  const root = isJsonObject(body) ? body : {};
  const content = records(root.content);
  const calls: ParsedCall[] = [];
  const parts: TurnPart[] = [];
  content.forEach((block, position) => {
    if (block.type === 'tool_use') {
      const nativeName = str(block.name) ?? '';
      const args =
        typeof block.input === 'string'
          ? decodeArgumentString(block.input)
          : decodeArgumentObject(block.input);
      const parsed = resolveCall({
        provider: PROVIDER,
        names,
        id:
          str(block.id) ??
          syntheticCallId([PROVIDER, root.id ?? null, position, nativeName, block.input ?? null]),
        nativeName,
        args,
        metadata: block.caller === undefined ? {} : { caller: block.caller },
      });
      calls.push(parsed);
      parts.push({ kind: 'tool_call', call: parsed.call });
    } else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
      parts.push({ kind: 'text', text: block.text });
    }
  });
  const replayed = content.map((block) =>
    block.type === 'tool_use' && !isJsonObject(block.input) ? { ...block, input: {} } : block,
  );
  return {
    calls,
    assistantTurn: { provider: PROVIDER, native: [{ role: 'assistant', content: replayed }], parts },
  };
}

function concat(current: unknown, delta: unknown): unknown {
  return typeof delta === 'string' ? (typeof current === 'string' ? current : '') + delta : current;
}

/** Tool input that does not parse stays a string; parseResponse turns it into a per-call error. */
function finishInput(block: JsonObject, partialJson: string | undefined): void {
  if (partialJson === undefined) return;
  const decoded = decodeArgumentString(partialJson);
  block.input = decoded.valid ? decoded.value : partialJson;
}

function assembleStream(chunks: readonly unknown[]): unknown {
  let message: JsonObject = {};
  const blocks = new Map<number, JsonObject>();
  const partialJson = new Map<number, string>();
  for (const event of records(chunks)) {
    const index = typeof event.index === 'number' ? event.index : -1;
    const block = blocks.get(index);
    const delta = isJsonObject(event.delta) ? event.delta : {};
    switch (event.type) {
      case 'message_start':
        message = isJsonObject(event.message) ? { ...event.message } : {};
        break;
      case 'content_block_start':
        if (isJsonObject(event.content_block)) blocks.set(index, { ...event.content_block });
        break;
      case 'content_block_delta':
        if (block === undefined) break;
        if (delta.type === 'text_delta') block.text = concat(block.text, delta.text);
        else if (delta.type === 'thinking_delta') block.thinking = concat(block.thinking, delta.thinking);
        else if (delta.type === 'signature_delta') block.signature = concat(block.signature, delta.signature);
        else if (delta.type === 'citations_delta') {
          block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          partialJson.set(index, (partialJson.get(index) ?? '') + delta.partial_json);
        }
        break;
      case 'content_block_stop':
        if (block !== undefined) finishInput(block, partialJson.get(index));
        partialJson.delete(index);
        break;
      case 'message_delta':
        message = { ...message, ...delta };
        if (isJsonObject(event.usage)) {
          message.usage = { ...(isJsonObject(message.usage) ? message.usage : {}), ...event.usage };
        }
        break;
    }
  }
  for (const [index, partial] of partialJson) {
    const block = blocks.get(index);
    if (block !== undefined) finishInput(block, partial);
  }
  // Without a single block or message event this is no Messages stream, so there is no turn in it:
  // the body says so instead of inventing an empty message.
  if (blocks.size === 0 && !records(chunks).some((e) => e.type === 'message_start')) return message;
  const content = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  return { ...message, content };
}

function renderAssistantTurn(turn: AssistantTurn, names: ToolNameMap): unknown[] {
  if (turn.provider === PROVIDER) return turn.native;
  const content = turn.parts.map((part) =>
    part.kind === 'text'
      ? { type: 'text', text: part.text }
      : {
          type: 'tool_use',
          id: part.call.id,
          name: nativeNameOf(names, part.call.name),
          input: argumentsObject(part.call),
        },
  );
  return [{ role: 'assistant', content }];
}

function toolResultMessages(turn: AssistantTurn, outcomes: readonly CallOutcome[]): unknown[] {
  const answers = answerCalls(turn, outcomes);
  if (answers.length === 0) return [];
  return [
    {
      role: 'user',
      content: answers.map(({ call, answer }) => ({
        type: 'tool_result',
        tool_use_id: call.id,
        content: answer.text,
        is_error: answer.isError,
      })),
    },
  ];
}

export const anthropicAdapter: ProviderAdapter = {
  provider: PROVIDER,
  nameRules: ANTHROPIC_NAME_RULES,
  toolDeclarations,
  parseResponse,
  assembleStream,
  renderAssistantTurn,
  toolResultMessages,
};
