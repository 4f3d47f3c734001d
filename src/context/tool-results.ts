import { countTokens } from '../domain/tokens.js';
import { outcomeText } from '../providers/tool-results.js';
import { keepHead, truncatedMarker } from './fit.js';
import type { OverflowRule, ToolCallSource, ToolResultEntry, ToolResultForm } from './types.js';

/** Tokens of tool output kept by the SUMMARY form. */
export const SUMMARY_TOKENS = 60;

/**
 * The summary form: short outputs as they are; longer ones cut to their first tokens with a note of
 * the full size. Answers that are not tool output (denied, cancelled, interrupted) are already short
 * and say what happened, so they never change.
 */
function summaryText(raw: string, isResult: boolean): string {
  if (!isResult) return raw;
  const total = countTokens(raw);
  if (total <= SUMMARY_TOKENS) return raw;
  const head = keepHead(raw.split('\n', 1)[0]!, SUMMARY_TOKENS).text;
  return `${head}\n[summary: the full result has ${total} tokens]`;
}

export function entryOf(source: ToolCallSource, form: ToolResultForm): ToolResultEntry {
  const answer = outcomeText(source.outcome);
  const isResult = source.outcome.outcome === 'result';
  return {
    callId: source.callId,
    providerCallId: source.providerCallId,
    name: source.name,
    status: source.status,
    form: isResult ? form : 'RAW',
    text: form === 'SUMMARY' ? summaryText(answer.text, isResult) : answer.text,
    isError: answer.isError,
    truncated: false,
    omitted: false,
  };
}

const header = (e: ToolResultEntry) => `[${e.name} · call ${e.providerCallId ?? e.callId} · ${e.status}]`;

/** The component text: each shown entry under a header naming the tool, the call and its status. */
export function renderEntries(entries: readonly ToolResultEntry[]): string {
  const shown = entries.filter((e) => !e.omitted);
  const omitted = entries.length - shown.length;
  const blocks = shown.map((e) => `${header(e)}\n${e.text}`);
  if (omitted > 0) blocks.unshift(`[… ${omitted} older tool results truncated]`);
  return blocks.join('\n\n');
}

export interface FittedEntries {
  entries: ToolResultEntry[];
  applied: OverflowRule | null;
}

const textTokens = new WeakMap<ToolResultEntry, number>();
const blockTokens = new WeakMap<ToolResultEntry, number>();
const memo = (cache: WeakMap<ToolResultEntry, number>, e: ToolResultEntry, text: () => string) => {
  let tokens = cache.get(e);
  if (tokens === undefined) {
    tokens = countTokens(text());
    cache.set(e, tokens);
  }
  return tokens;
};

const omittedEntry = (e: ToolResultEntry): ToolResultEntry => ({
  ...e,
  text: truncatedMarker(memo(textTokens, e, () => e.text)),
  truncated: true,
  omitted: true,
});

/**
 * Whether the rendered entries fit the budget. Fitting tries many arrangements; tokenizing all of
 * them in full would grow with the square of the number of results. Each entry's block is counted
 * once, and their sum differs from the exact count only by a token or two per join, so the exact
 * count runs only for arrangements whose sum is near the budget.
 */
function fits(entries: readonly ToolResultEntry[], budget: number): boolean {
  const shown = entries.filter((e) => !e.omitted);
  const sum = shown.reduce((total, e) => total + memo(blockTokens, e, () => `${header(e)}\n${e.text}`), 0);
  if (sum - 2 * shown.length - 16 > budget) return false;
  return countTokens(renderEntries(entries)) <= budget;
}

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
    const room = budget - countTokens(renderEntries(rest));
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
