import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { ToolCallRequest } from '../../core/tool-call.js';
import type { BuiltInToolError } from '../../core/tool-error-codes.js';
import { type ToolNameMap, toolNameOf } from './names.js';
import type { ParsedCall, ProviderKind, TurnPart } from './types.js';

/** Provider payloads are untrusted input: anything that is not a list of objects reads as empty. */
export function records(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Key order must not change a hash, so objects are serialised with sorted keys. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Gemini (and some OpenAI-compatible servers) omit call ids. The lifecycle keys calls by id, so the
 * id must be the same every time the same response is parsed, and differ between two identical
 * calls at different positions.
 */
export function syntheticCallId(seed: readonly unknown[]): string {
  return `synth_${sha256Hex(stableStringify(seed)).slice(0, 24)}`;
}

type DecodedArguments = { valid: true; value: JsonObject } | { valid: false; value: unknown };

/** An empty argument string is how several providers stream a call with no parameters. */
export function decodeArgumentString(raw: string): DecodedArguments {
  if (raw.trim() === '') return { valid: true, value: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    return isJsonObject(parsed) ? { valid: true, value: parsed } : { valid: false, value: raw };
  } catch {
    return { valid: false, value: raw };
  }
}

export function decodeArgumentObject(value: unknown): DecodedArguments {
  if (value === undefined) return { valid: true, value: {} };
  return isJsonObject(value) ? { valid: true, value } : { valid: false, value };
}

interface CallInput {
  provider: ProviderKind;
  names: ToolNameMap;
  id: string;
  nativeName: string;
  args: DecodedArguments;
  metadata?: JsonObject;
}

/** Unknown names and malformed arguments are the model's mistakes: they stay attached to the call. */
export function resolveCall(input: CallInput): ParsedCall {
  const name = toolNameOf(input.names, input.nativeName);
  const call: ToolCallRequest = {
    id: input.id,
    name: name ?? input.nativeName,
    arguments: input.args.value,
    providerMetadata: { provider: input.provider, nativeName: input.nativeName, ...input.metadata },
  };
  let error: BuiltInToolError | null = null;
  if (name === null) {
    error = {
      kind: 'RECOVERABLE',
      code: 'unknown_tool',
      message: `The model called "${input.nativeName}", which is not one of the tools offered for this run.`,
    };
  } else if (!input.args.valid) {
    error = {
      kind: 'RECOVERABLE',
      code: 'invalid_arguments',
      message: `The arguments for "${name}" are not a JSON object.`,
    };
  }
  return { call, error };
}

export function turnCalls(parts: readonly TurnPart[]): ToolCallRequest[] {
  return parts.flatMap((part) => (part.kind === 'tool_call' ? [part.call] : []));
}

/** Object-only wire fields (Anthropic `input`, Gemini `args`) get `{}` when the model sent garbage. */
export function argumentsObject(call: ToolCallRequest): JsonObject {
  return isJsonObject(call.arguments) ? call.arguments : {};
}

export function argumentsJson(call: ToolCallRequest): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(argumentsObject(call));
}

export function metadataOf(call: ToolCallRequest, provider: ProviderKind): JsonObject | null {
  const meta = call.providerMetadata;
  return meta !== null && meta.provider === provider ? meta : null;
}

export function turnText(parts: readonly TurnPart[]): string {
  return parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('\n\n');
}
