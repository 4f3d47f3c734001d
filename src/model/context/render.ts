import { adapterFor } from '../providers/index.js';
import type { ToolNameMap } from '../providers/names.js';
import type { AssistantTurn, CallOutcome, ProviderKind } from '../providers/types.js';
import { renderEntries } from './tool-results.js';
import type { ContextFrame } from './types.js';

export const HIDDEN_RESULT_TEXT = '[The output of this call is not shown in this context.]';
/** A result the frame does not hold although it shows results: older than those it reads. */
export const OLDER_RESULT_TEXT =
  '[The output of this call is left out: it is older than the tool results this context holds.]';

/**
 * Anthropic and Gemini reject a conversation that does not open with a user turn; when a preset
 * assembles nothing, this stands where the context would be, so every body is one the provider takes.
 */
export const EMPTY_CONTEXT_TEXT = '[No context was assembled for this request.]';

/** A stored assistant turn with the outcome of each of its calls, keyed by provider call id. */
export interface ConversationTurn {
  turn: AssistantTurn;
  calls: Array<{ callId: string; outcome: CallOutcome }>;
}

/**
 * Seed §9: tool output reaches the model only through the frame. A call the model made is answered
 * where its provider requires (right after the turn), and the answer carries the frame's entry for
 * that call: raw or summary, cut to the budget, or a note that the preset hides tool output. Answers
 * that are not tool output (denied, cancelled, interrupted) always say what happened.
 */
export function answerFor(frame: ContextFrame, callId: string, outcome: CallOutcome): CallOutcome {
  if (outcome.outcome !== 'result') return outcome;
  const entry = frame.toolResultsVisible ? frame.toolResults.find((e) => e.callId === callId) : undefined;
  const text = entry?.text ?? (frame.toolResultsVisible ? OLDER_RESULT_TEXT : HIDDEN_RESULT_TEXT);
  return {
    ...outcome,
    // The frame's entry already says which arguments an edited call ran with.
    ...(entry ? { edited: undefined } : {}),
    result: {
      ...outcome.result,
      content: [{ type: 'text', text }],
      structured: null,
    },
  };
}

/**
 * The frame as one block of text, in the preset's order. The TOOL_RESULTS block holds only results
 * of calls that no stored turn made (calls the runtime requested itself): the others are answered
 * natively next to their turn.
 */
export function contextText(frame: ContextFrame, answeredNatively: ReadonlySet<string>): string {
  const blocks: string[] = [];
  for (const component of frame.components) {
    if (component.kind === 'SYSTEM') continue;
    const content =
      component.kind === 'TOOL_RESULTS'
        ? renderEntries(frame.toolResults.filter((e) => !answeredNatively.has(e.callId)))
        : component.content;
    if (content === '') continue;
    blocks.push(`<${component.kind} source="${component.source}">\n${content}\n</${component.kind}>`);
  }
  return blocks.join('\n\n');
}

export interface RequestParts {
  provider: ProviderKind;
  frame: ContextFrame;
  turns: readonly ConversationTurn[];
  tools: unknown[];
  names: ToolNameMap;
}

/**
 * The body of the provider's next request, without model and sampling settings (the caller adds
 * them): system text, the context block as the first user message, then every stored turn (replayed
 * untouched to its own provider) followed by the answers to its calls.
 */
export function renderModelRequest(parts: RequestParts): Record<string, unknown> {
  const adapter = adapterFor(parts.provider);
  const system = parts.frame.components.find((c) => c.kind === 'SYSTEM')?.content ?? null;
  const answered = new Set(parts.turns.flatMap((t) => t.calls.map((c) => c.callId)));
  const assembled = contextText(parts.frame, answered);
  const context = assembled === '' && parts.turns.length > 0 ? EMPTY_CONTEXT_TEXT : assembled;
  const history: unknown[] = [];
  for (const { turn, calls } of parts.turns) {
    history.push(...adapter.renderAssistantTurn(turn, parts.names));
    if (calls.length === 0) continue;
    const outcomes = calls.map((c) => answerFor(parts.frame, c.callId, c.outcome));
    history.push(...adapter.toolResultMessages(turn, outcomes, parts.names));
  }
  const withTools = (body: Record<string, unknown>) =>
    parts.tools.length > 0 ? { ...body, tools: parts.tools } : body;

  switch (parts.provider) {
    case 'OPENAI_CHAT':
      return withTools({
        messages: [
          ...(system === null ? [] : [{ role: 'system', content: system }]),
          ...(context === '' ? [] : [{ role: 'user', content: context }]),
          ...history,
        ],
      });
    case 'OPENAI_RESPONSES':
      // Stateless: the reasoning items are replayed by the caller, so their encrypted content must come back.
      return withTools({
        ...(system === null ? {} : { instructions: system }),
        input: [
          ...(context === '' ? [] : [{ role: 'user', content: [{ type: 'input_text', text: context }] }]),
          ...history,
        ],
        store: false,
        include: ['reasoning.encrypted_content'],
      });
    case 'ANTHROPIC':
      return withTools({
        ...(system === null ? {} : { system }),
        messages: [
          ...(context === '' ? [] : [{ role: 'user', content: [{ type: 'text', text: context }] }]),
          ...history,
        ],
      });
    case 'GEMINI':
      return withTools({
        ...(system === null ? {} : { systemInstruction: { parts: [{ text: system }] } }),
        contents: [...(context === '' ? [] : [{ role: 'user', parts: [{ text: context }] }]), ...history],
      });
  }
}
