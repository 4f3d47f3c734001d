import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import {
  argumentsObject,
  decodeArgumentObject,
  metadataOf,
  records,
  resolveCall,
  str,
  syntheticCallId,
} from './common.js';
import { prepareTools } from './declarations.js';
import { GEMINI_NAME_RULES, nativeNameOf, type ToolNameMap } from './names.js';
import { answerCalls } from './tool-results.js';
import type {
  AssistantTurn,
  CallOutcome,
  ParsedCall,
  ParsedResponse,
  ProviderAdapter,
  ToolDeclarations,
  TurnPart,
} from './types.js';

const PROVIDER = 'GEMINI';

/** Gemini has no strict mode, so the declaration options do not apply. */
function toolDeclarations(specs: readonly ToolSpec[]): ToolDeclarations {
  const prepared = prepareTools(specs, { rules: GEMINI_NAME_RULES, loose: 'gemini', strict: null });
  const declarations = prepared.tools.map((tool) => ({
    name: tool.nativeName,
    description: tool.description,
    // A tool without parameters must omit them: Gemini rejects an object with no properties.
    ...(isJsonObject(tool.schema.properties) ? { parameters: tool.schema } : {}),
  }));
  return {
    tools: declarations.length > 0 ? [{ functionDeclarations: declarations }] : [],
    names: prepared.names,
    report: prepared.report,
  };
}

/**
 * The model content is replayed as it came: each `thoughtSignature` stays on the part that carried
 * it (with parallel calls, only the first call has one). Calls have no id unless the API gave one,
 * so one is derived from the response id, the part's position, the name and the arguments.
 */
function parseResponse(body: unknown, names: ToolNameMap): ParsedResponse {
  const root = isJsonObject(body) ? body : {};
  const candidate = records(root.candidates)[0];
  const content = isJsonObject(candidate?.content) ? candidate.content : { parts: [] };
  const calls: ParsedCall[] = [];
  const parts: TurnPart[] = [];
  records(content.parts).forEach((part, position) => {
    if (isJsonObject(part.functionCall)) {
      const functionCall = part.functionCall;
      const nativeName = str(functionCall.name) ?? '';
      const nativeId = str(functionCall.id);
      const metadata: JsonObject = { syntheticId: nativeId === undefined };
      if (typeof part.thoughtSignature === 'string') metadata.thoughtSignature = part.thoughtSignature;
      const parsed = resolveCall({
        provider: PROVIDER,
        names,
        id:
          nativeId ??
          syntheticCallId([
            PROVIDER,
            root.responseId ?? null,
            position,
            nativeName,
            functionCall.args ?? null,
          ]),
        nativeName,
        args: decodeArgumentObject(functionCall.args),
        metadata,
      });
      calls.push(parsed);
      parts.push({ kind: 'tool_call', call: parsed.call });
    } else if (typeof part.text === 'string' && part.thought !== true && part.text !== '') {
      parts.push({ kind: 'text', text: part.text });
    }
  });
  const native = content.role === undefined ? { role: 'model', ...content } : content;
  return { calls, assistantTurn: { provider: PROVIDER, native: [native], parts } };
}

function pathSegments(jsonPath: string): Array<string | number> {
  return [...jsonPath.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)].map((m) =>
    m[2] === undefined ? m[1]! : Number(m[2]),
  );
}

/** Streamed string arguments arrive in pieces for the same path and are concatenated. */
function applyPartialArgs(args: JsonObject, partialArgs: unknown): void {
  for (const partial of records(partialArgs)) {
    const segments = pathSegments(str(partial.jsonPath) ?? '');
    const last = segments.pop();
    if (last === undefined) continue;
    let container: Record<string | number, unknown> = args;
    segments.forEach((segment, i) => {
      const following = segments[i + 1] ?? last;
      const next = container[segment];
      if (typeof next !== 'object' || next === null)
        container[segment] = typeof following === 'number' ? [] : {};
      container = container[segment] as Record<string | number, unknown>;
    });
    if (typeof partial.stringValue === 'string') {
      const existing = container[last];
      container[last] = (typeof existing === 'string' ? existing : '') + partial.stringValue;
    } else if ('numberValue' in partial) container[last] = partial.numberValue;
    else if ('boolValue' in partial) container[last] = partial.boolValue;
    else if ('nullValue' in partial) container[last] = null;
  }
}

function isPlainText(part: JsonObject): boolean {
  return Object.keys(part).every((key) => key === 'text' || key === 'thought');
}

/**
 * Text pieces are joined unless a signature is involved: a signed piece starts its own part and
 * nothing is appended to it, so every signature stays on the content it was issued for. A call
 * streamed with `willContinue` is rebuilt from its `partialArgs` until the closing empty call.
 */
function assembleStream(chunks: readonly unknown[]): unknown {
  let head: JsonObject = {};
  let candidateFields: JsonObject = {};
  let role: unknown = 'model';
  const parts: JsonObject[] = [];
  let pending: { part: JsonObject; args: JsonObject } | null = null;
  let sawCandidate = false;
  for (const chunk of records(chunks)) {
    const { candidates, ...chunkFields } = chunk;
    head = { ...head, ...chunkFields };
    const candidate = records(candidates)[0];
    if (candidate === undefined) continue;
    sawCandidate = true;
    const { content, ...fields } = candidate;
    candidateFields = { ...candidateFields, ...fields };
    if (!isJsonObject(content)) continue;
    role = content.role ?? role;
    for (const part of records(content.parts)) {
      if (isJsonObject(part.functionCall)) {
        const { willContinue, partialArgs, ...call } = part.functionCall;
        if (typeof call.name === 'string') {
          pending = null;
          if (willContinue === true) {
            const args = isJsonObject(call.args) ? { ...call.args } : {};
            applyPartialArgs(args, partialArgs);
            pending = { part: { ...part, functionCall: { ...call, args } }, args };
            parts.push(pending.part);
          } else {
            parts.push(part);
          }
        } else if (pending !== null) {
          applyPartialArgs(pending.args, partialArgs);
          // A signature sent with a later piece belongs to the call being streamed.
          if (typeof part.thoughtSignature === 'string')
            pending.part.thoughtSignature = part.thoughtSignature;
          if (willContinue !== true) pending = null;
        }
      } else if (typeof part.text === 'string') {
        const signed = typeof part.thoughtSignature === 'string';
        const last = parts.at(-1);
        if (!signed && part.text === '') continue;
        if (
          !signed &&
          last !== undefined &&
          typeof last.text === 'string' &&
          isPlainText(last) &&
          isPlainText(part) &&
          (last.thought === true) === (part.thought === true)
        ) {
          last.text += part.text;
        } else {
          parts.push({ ...part });
        }
      } else {
        parts.push(part);
      }
    }
  }
  // A stream with no candidate in any chunk (a blocked prompt, or no Gemini stream at all) has no
  // turn in it: the body says so instead of inventing an empty one.
  if (!sawCandidate) return head;
  return { ...head, candidates: [{ content: { role, parts }, ...candidateFields }] };
}

function renderAssistantTurn(turn: AssistantTurn, names: ToolNameMap): unknown[] {
  if (turn.provider === PROVIDER) return turn.native;
  const parts = turn.parts.map((part) =>
    part.kind === 'text'
      ? { text: part.text }
      : { functionCall: { name: nativeNameOf(names, part.call.name), args: argumentsObject(part.call) } },
  );
  return [{ role: 'model', parts }];
}

/**
 * A Gemini call is answered under the exact name Gemini used for it, and with its id only when
 * Gemini issued one (a synthetic id means nothing to the API).
 */
function toolResultMessages(
  turn: AssistantTurn,
  outcomes: readonly CallOutcome[],
  names: ToolNameMap,
): unknown[] {
  const answers = answerCalls(turn, outcomes);
  if (answers.length === 0) return [];
  const parts = answers.map(({ call, answer }) => {
    const own = metadataOf(call, PROVIDER);
    const name = own === null ? nativeNameOf(names, call.name) : (str(own.nativeName) ?? call.name);
    return {
      functionResponse: {
        ...(own !== null && own.syntheticId === false ? { id: call.id } : {}),
        name,
        response: answer.isError ? { error: answer.text } : { output: answer.text },
      },
    };
  });
  return [{ role: 'user', parts }];
}

export const geminiAdapter: ProviderAdapter = {
  provider: PROVIDER,
  nameRules: GEMINI_NAME_RULES,
  toolDeclarations,
  parseResponse,
  assembleStream,
  renderAssistantTurn,
  toolResultMessages,
};
