/** What a parsed model response's calls become before they are requested. */
import { isJsonObject } from '../core/json.js';
import type { ToolCallRequest } from '../core/tool-call.js';
import type { BuiltInToolError } from '../core/tool-error-codes.js';
import { type NameRules, registeredToolOf } from './providers/names.js';
import type { ParsedResponse } from './providers/types.js';

/**
 * A synthetic id (Gemini without call ids) is derived from the response, and a response without a
 * `responseId` can repeat word for word in a later turn ("read that file again"). Scoped by the
 * turn's index, the repeat is a new call instead of a replay of the old one; resubmitting the same
 * response still finds the same turn, so the same ids.
 */
export function scopeSyntheticIds(parsed: ParsedResponse, turnIndex: number): ParsedResponse {
  const scope = (call: ToolCallRequest): ToolCallRequest =>
    call.providerMetadata?.syntheticId === true ? { ...call, id: `${call.id}_t${turnIndex}` } : call;
  return {
    calls: parsed.calls.map((c) => ({ ...c, call: scope(c.call) })),
    assistantTurn: {
      ...parsed.assistantTurn,
      parts: parsed.assistantTurn.parts.map((part) =>
        part.kind === 'tool_call' ? { ...part, call: scope(part.call) } : part,
      ),
    },
  };
}

/**
 * Seed §6, one policy path: a call to a tool that exists but was not offered is not the model
 * inventing a name. It is requested under the tool's own name, so policy refuses it as a
 * violation (or availability as a tool that cannot run now); only a name that matches no
 * registered tool stays a recoverable `unknown_tool`. Arguments that are not an object stay
 * `invalid_arguments`: there is nothing to request.
 */
export function resolveUnoffered(
  parsed: ParsedResponse,
  registered: readonly string[],
  rules: NameRules,
): ParsedResponse {
  const renamed = new Map<string, string>();
  const calls = parsed.calls.map((parsedCall) => {
    const { call, error } = parsedCall;
    if (error?.code !== 'unknown_tool') return parsedCall;
    const name = registeredToolOf(call.name, registered, rules);
    if (name === null) return parsedCall;
    renamed.set(call.id, name);
    const args = isJsonObject(call.arguments) ? null : invalidShape(name);
    return { call: { ...call, name }, error: args };
  });
  if (renamed.size === 0) return parsed;
  return {
    calls,
    assistantTurn: {
      ...parsed.assistantTurn,
      parts: parsed.assistantTurn.parts.map((part) =>
        part.kind === 'tool_call' && renamed.has(part.call.id)
          ? { ...part, call: { ...part.call, name: renamed.get(part.call.id)! } }
          : part,
      ),
    },
  };
}

const invalidShape = (name: string): BuiltInToolError<'RECOVERABLE'> => ({
  kind: 'RECOVERABLE',
  code: 'invalid_arguments',
  message: `The arguments for "${name}" are not a JSON object.`,
});
