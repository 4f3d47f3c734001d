import type { ToolCallRequest } from '../../core/tool-call.js';
import type { ToolError, ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { NameRules, ToolNameMap } from './names.js';
import type { NarrowingEntry } from './schema-narrowing/index.js';

export const providerKinds = ['OPENAI_CHAT', 'OPENAI_RESPONSES', 'ANTHROPIC', 'GEMINI'] as const;
export type ProviderKind = (typeof providerKinds)[number];

export interface DeclarationOptions {
  /**
   * Constrained decoding of arguments. OpenAI defaults to on (its recommended mode); Anthropic
   * defaults to off (strict grammars have per-request limits); Gemini has no strict mode.
   */
  strict?: boolean;
}

export interface ToolNarrowingReport {
  tool: string;
  nativeName: string;
  strict: boolean;
  entries: NarrowingEntry[];
}

export interface ToolDeclarations {
  /** The provider's `tools` request field, ready to send. */
  tools: unknown[];
  names: ToolNameMap;
  report: ToolNarrowingReport[];
}

/** A call the model made; `error` is set when it cannot run as asked (the call still needs an answer). */
export interface ParsedCall {
  call: ToolCallRequest;
  error: ToolError | null;
}

/** The provider-neutral view of an assistant turn, used when the next request goes elsewhere. */
export type TurnPart = { kind: 'text'; text: string } | { kind: 'tool_call'; call: ToolCallRequest };

export interface AssistantTurn {
  provider: ProviderKind;
  /**
   * The turn exactly as the provider produced it (messages, items or contents), replayed untouched
   * to the same provider so signatures and encrypted reasoning survive byte for byte.
   */
  native: unknown[];
  parts: TurnPart[];
}

export interface ParsedResponse {
  calls: ParsedCall[];
  assistantTurn: AssistantTurn;
}

/** A person changed the call's arguments before approving: these ran (or were decided on) instead. */
export interface EditedArguments {
  by: string;
  arguments: unknown;
}

export type CallOutcome = (
  | { callId: string; outcome: 'result'; result: ToolResult }
  /** With `feedback`, the answer is the person's words: "Denied by <deniedBy>: <feedback>". */
  | { callId: string; outcome: 'denied'; message?: string; deniedBy?: string; feedback?: string }
  | { callId: string; outcome: 'cancelled' | 'interrupted' | 'invalid' | 'expired'; message?: string }
) & {
  /** The answer is an edited call's: it first says which arguments that call had. */
  edited?: EditedArguments;
};

export interface ProviderAdapter {
  readonly provider: ProviderKind;
  readonly nameRules: NameRules;
  /** Only enabled tools visible to the model are declared. */
  toolDeclarations(specs: readonly ToolSpec[], options?: DeclarationOptions): ToolDeclarations;
  /**
   * Never throws on model mistakes: they become per-call errors. A body that is not a response of
   * the provider at all is refused before this runs (response-shapes.ts).
   */
  parseResponse(body: unknown, names: ToolNameMap): ParsedResponse;
  /** Stream events or chunks (already JSON-decoded) → the equivalent whole response body. */
  assembleStream(chunks: readonly unknown[]): unknown;
  /** The turn as native history for this provider's next request. */
  renderAssistantTurn(turn: AssistantTurn, names: ToolNameMap): unknown[];
  /** One answer for every call of the turn, in call order, as native history. */
  toolResultMessages(turn: AssistantTurn, outcomes: readonly CallOutcome[], names: ToolNameMap): unknown[];
}
