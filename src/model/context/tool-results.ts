import { countTokens } from '../../core/tokens.js';
import { outcomeText } from '../providers/tool-results.js';
import { keepHead, truncatedMarker } from './fit.js';
import { summarizeResult } from './summary.js';
import type { OverflowRule, ToolCallSource, ToolResultEntry, ToolResultForm } from './types.js';

export function entryOf(source: ToolCallSource, form: ToolResultForm): ToolResultEntry {
  const answer = outcomeText(source.outcome);
  const isResult = source.outcome.outcome === 'result';
  return {
    callId: source.callId,
    providerCallId: source.providerCallId,
    name: source.name,
    status: source.status,
    form: isResult ? form : 'RAW',
    // Answers that are not tool output (denied, cancelled, interrupted) are short and say what happened.
    text:
      form === 'SUMMARY' && source.outcome.outcome === 'result'
        ? summarizeResult(source.outcome.result, answer.text)
        : answer.text,
    isError: answer.isError,
    truncated: false,
    omitted: false,
  };
}

const header = (e: ToolResultEntry) => `[${e.name} · call ${e.providerCallId ?? e.callId} · ${e.status}]`;
const SEPARATOR = '\n\n';

const blockOf = (e: ToolResultEntry) => `${header(e)}\n${e.text}`;
const omittedBlock = (count: number) => `[… ${count} older tool results truncated]`;

function blocksOf(entries: readonly ToolResultEntry[]): string[] {
  const shown = entries.filter((e) => !e.omitted);
  const omitted = entries.length - shown.length;
  const blocks = shown.map(blockOf);
  if (omitted > 0) blocks.unshift(omittedBlock(omitted));
  return blocks;
}

/** The component text: each shown entry under a header naming the tool, the call and its status. */
export function renderEntries(entries: readonly ToolResultEntry[]): string {
  return blocksOf(entries).join(SEPARATOR);
}

/** Per entry: the tokens of its block followed by a separator, and of its block alone (the last). */
const unitTokens = new WeakMap<ToolResultEntry, { followed?: number; last?: number }>();

function entryUnitTokens(e: ToolResultEntry, last: boolean): number {
  let known = unitTokens.get(e);
  if (!known) {
    known = {};
    unitTokens.set(e, known);
  }
  const key = last ? 'last' : 'followed';
  known[key] ??= countTokens(last ? blockOf(e) : `${blockOf(e)}${SEPARATOR}`);
  return known[key];
}

/**
 * Exactly `countTokens(renderEntries(entries))`, counted block by block. Every block starts with
 * `[` after a blank line, and the tokenizer's pre-split never joins a line break to a following
 * `[`, so the count of the whole is the sum of the counts of each block with the separator after
 * it. Fitting tries many arrangements of the same entries: each is tokenized once (and, its text
 * being immutable, stays counted for the run's later requests), so fitting is linear in the results.
 */
export function entriesTokens(entries: readonly ToolResultEntry[]): number {
  const shown = entries.filter((e) => !e.omitted);
  const omitted = entries.length - shown.length;
  let sum = omitted > 0 ? countTokens(`${omittedBlock(omitted)}${shown.length > 0 ? SEPARATOR : ''}`) : 0;
  for (const [i, e] of shown.entries()) sum += entryUnitTokens(e, i === shown.length - 1);
  return sum;
}

export interface FittedEntries {
  entries: ToolResultEntry[];
  applied: OverflowRule | null;
}

const omittedEntry = (e: ToolResultEntry): ToolResultEntry => ({
  ...e,
  text: truncatedMarker(countTokens(e.text)),
  truncated: true,
  omitted: true,
});

const fits = (entries: readonly ToolResultEntry[], budget: number) => entriesTokens(entries) <= budget;

/**
 * Newest results matter most: the fewest oldest entries are left out (their native answers carry
 * only the marker) so that the rest fits, the oldest one kept being cut with a marker if need be.
 */
function truncateEntries(entries: readonly ToolResultEntry[], budget: number): ToolResultEntry[] {
  const omitted = entries.map(omittedEntry);
  for (let omit = 0; omit < entries.length; omit++) {
    const out = entries.map((e, i) => (i < omit ? omitted[i]! : e));
    if (fits(out, budget)) return out;
    const oldest = out[omit]!;
    const rest = out.map((e, i) => (i === omit ? { ...e, text: '' } : e));
    if (!fits(rest, budget - 9)) continue;
    const room = budget - entriesTokens(rest);
    out[omit] = { ...oldest, text: keepHead(oldest.text, room - 2).text, truncated: true };
    if (fits(out, budget)) return out;
  }
  return omitted;
}

/**
 * TRUNCATE cuts as above. SUMMARIZE first turns results into their summary form, oldest first,
 * until the whole fits, and truncates only if that is not enough. DROP and FAIL are decided by the
 * caller, which sees the component as a whole.
 */
export function fitEntries(
  entries: readonly ToolResultEntry[],
  sources: readonly ToolCallSource[],
  budget: number,
  rule: 'TRUNCATE' | 'SUMMARIZE',
): FittedEntries {
  let current = [...entries];
  if (fits(current, budget)) return { entries: current, applied: null };
  if (rule === 'SUMMARIZE') {
    for (let i = 0; i < current.length; i++) {
      if (current[i]!.form === 'SUMMARY') continue;
      current[i] = entryOf(sources[i]!, 'SUMMARY');
      if (fits(current, budget)) return { entries: current, applied: 'SUMMARIZE' };
    }
  }
  current = truncateEntries(current, budget);
  return { entries: current, applied: rule };
}
