import { canonicalJson } from '../../core/canonical-json.js';
import { badInput } from '../../core/errors.js';
import type { ToolCallRequest } from '../../core/tool-call.js';
import type { ContentPart, ToolResult } from '../../core/tool-result.js';
import { turnCalls } from './common.js';
import type { AssistantTurn, CallOutcome, EditedArguments } from './types.js';

export interface ResultText {
  text: string;
  isError: boolean;
}

function partText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'json':
      return JSON.stringify(part.value);
    case 'image_ref':
      return `[image ${part.mimeType}: ${part.uri}]`;
    case 'audio_ref':
      return `[audio ${part.mimeType}: ${part.uri}]`;
    case 'file_ref':
      return `[file: ${part.path}]`;
    case 'resource_ref':
      return part.description === undefined
        ? `[resource: ${part.uri}]`
        : `[resource: ${part.uri} (${part.description})]`;
    case 'diff_ref':
      return `[diff: ${part.uri}]`;
  }
}

function resultBody(result: ToolResult): string {
  if (result.content.length > 0) return result.content.map(partText).join('\n');
  if (result.structured !== null && result.structured !== undefined) return JSON.stringify(result.structured);
  return '(no output)';
}

const NOT_RUN_TEXT = {
  denied: 'Denied: this tool call was not approved and did not run.',
  cancelled: 'Cancelled: this tool call was cancelled and did not complete.',
  interrupted:
    'Interrupted: this tool call was interrupted before it finished; its effects may be incomplete.',
  invalid: 'Invalid: this tool call was rejected before it ran.',
  expired: 'Expired: this tool call did not run. No one decided in time; you may ask again.',
} as const;

const MISSING_TEXT = 'No result: no outcome was recorded for this tool call.';

/**
 * The model reads this text, so each outcome says exactly what happened: an interrupted call may
 * have partly run, which is not the same as a denied one.
 */
export function outcomeText(outcome: CallOutcome | undefined): ResultText {
  if (outcome === undefined) return { text: MISSING_TEXT, isError: true };
  if (outcome.edited) {
    const { text, isError } = outcomeText({ ...outcome, edited: undefined });
    return { text: `${editedNote(outcome.outcome, outcome.edited)}\n${text}`, isError };
  }
  if (outcome.outcome === 'result')
    return { text: resultBody(outcome.result), isError: outcome.result.isError };
  if (outcome.outcome === 'denied' && outcome.feedback !== undefined)
    return { text: `Denied by ${outcome.deniedBy ?? 'a person'}: ${outcome.feedback}`, isError: true };
  const base = NOT_RUN_TEXT[outcome.outcome];
  return { text: outcome.message === undefined ? base : `${base} Reason: ${outcome.message}`, isError: true };
}

/** The model asked for other arguments than those a person let run: it is told which ran. */
function editedNote(outcome: CallOutcome['outcome'], edited: EditedArguments): string {
  const args = canonicalJson(edited.arguments);
  return outcome === 'result'
    ? `Arguments edited by ${edited.by} before running: ${args}`
    : `Arguments edited by ${edited.by}: ${args}`;
}

/**
 * Pairs every call of the turn with its outcome, in call order. Providers reject a turn whose calls
 * are not all answered, so a call without an outcome still gets an explicit answer; an outcome for
 * a call the turn does not contain is a caller bug.
 */
export function answerCalls(
  turn: AssistantTurn,
  outcomes: readonly CallOutcome[],
): Array<{ call: ToolCallRequest; answer: ResultText }> {
  const calls = turnCalls(turn.parts);
  const byId = new Map<string, CallOutcome>();
  for (const outcome of outcomes) {
    if (!calls.some((call) => call.id === outcome.callId)) {
      throw badInput(`Outcome for call ${outcome.callId}, which is not part of this assistant turn`);
    }
    if (byId.has(outcome.callId)) throw badInput(`Two outcomes for call ${outcome.callId}`);
    byId.set(outcome.callId, outcome);
  }
  return calls.map((call) => ({ call, answer: outcomeText(byId.get(call.id)) }));
}
