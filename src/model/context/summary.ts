import { isJsonObject } from '../../core/json.js';
import { countTokens, truncateToTokens } from '../../core/tokens.js';
import type { ToolResult } from '../../core/tool-result.js';

/**
 * The SUMMARY form of one tool result: what a model keeps of an older result when the preset asks
 * for summaries. A result short enough stays as it is. A tool that knows what matters says so
 * in a `summary` string of its structured output, and that is shown. Otherwise a digest the
 * model can act on: the first lines, then the size, the structured output's field names with
 * the length of each list, and the resources holding the full output (resource.read opens them).
 */

/** Results up to this many tokens are their own summary. */
export const SUMMARY_TOKENS = 60;
const OWN_SUMMARY_TOKENS = 120;
const FIRST_LINES = 2;
const LINE_TOKENS = 40;
const MAX_FIELDS = 8;
const MAX_RESOURCES = 3;

const cut = (text: string, tokens: number) => {
  const head = truncateToTokens(text, tokens);
  return head.length < text.length ? `${head}…` : head;
};

/** `name`, or `name (n)` for a list of n items; at most MAX_FIELDS, then how many more. */
function fieldNames(structured: unknown): string | null {
  if (!isJsonObject(structured)) return Array.isArray(structured) ? `a list of ${structured.length}` : null;
  const names = Object.entries(structured).map(([key, value]) =>
    Array.isArray(value) ? `${key} (${value.length})` : key,
  );
  if (names.length === 0) return null;
  const shown = names.slice(0, MAX_FIELDS).join(', ');
  return names.length > MAX_FIELDS ? `${shown} and ${names.length - MAX_FIELDS} more` : shown;
}

function ownSummary(structured: unknown): string | null {
  if (!isJsonObject(structured) || typeof structured.summary !== 'string') return null;
  const summary = structured.summary.trim();
  return summary === '' ? null : cut(summary, OWN_SUMMARY_TOKENS);
}

export function summarizeResult(result: ToolResult, raw: string): string {
  const total = countTokens(raw);
  if (total <= SUMMARY_TOKENS) return raw;
  const resources =
    result.resourceRefs.length === 0
      ? null
      : `full output: ${result.resourceRefs.slice(0, MAX_RESOURCES).join(', ')}${result.resourceRefs.length > MAX_RESOURCES ? ` and ${result.resourceRefs.length - MAX_RESOURCES} more` : ''}`;
  const own = ownSummary(result.structured);
  if (own !== null)
    return `${own}\n[summary by the tool; the full result has ${total} tokens${resources ? `; ${resources}` : ''}]`;
  const lines = raw.split('\n').filter((line) => line.trim() !== '');
  const first = lines.slice(0, FIRST_LINES).map((line) => cut(line, LINE_TOKENS));
  const facts = [
    `the full result has ${total} tokens${lines.length > 1 ? ` in ${lines.length} lines` : ''}`,
    ...(fieldNames(result.structured) ? [`fields: ${fieldNames(result.structured)}`] : []),
    ...(resources ? [resources] : []),
  ];
  return `${first.join('\n')}\n[summary: ${facts.join('; ')}]`;
}
