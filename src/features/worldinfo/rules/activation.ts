/**
 * World-info activation computed from recent chat messages: a documented subset of SillyTavern's
 * `checkWorldInfo` (public/scripts/world-info.js), matching its key matching exactly.
 *
 * What is the same as SillyTavern:
 * - Disabled entries never activate; constant entries always do (when not disabled).
 * - Scan text: the `scanDepth` most recent messages (entry `scanDepth`, else the global one, ST's
 *   default 2; capped at 1000; 0 scans nothing), hidden messages (`is_system`) skipped as ST's
 *   `coreChat` does, each as `name: text` when `includeNames` (ST's default) and trimmed, newest
 *   first, joined with ST's `\x01` separator so a plain key cannot match across two messages.
 * - Primary keys: any one key matching activates. Empty keys never match.
 * - Secondary keys apply only when the entry is `selective` and has secondary keys: AND_ANY (0) one
 *   must match, NOT_ALL (1) at least one must not match, NOT_ANY (2) none may match, AND_ALL (3) all
 *   must match.
 * - Regex keys: `/pattern/flags` (flags from `gimsuy`, inner slashes escaped) parsed like ST's
 *   `parseRegexFromString`; a regex key ignores case sensitivity and whole-word settings.
 * - Case sensitivity: entry `caseSensitive`, else the global setting (default false).
 * - Whole words: entry `matchWholeWords`, else global (default false). As in ST, a key with
 *   whitespace inside is matched as a substring, and a single word must be bounded by
 *   `(?:^|\W)…(?:$|\W)` WITHOUT the `u` flag. `\W` is ASCII-only there, so every non-ASCII character
 *   counts as a boundary: a CJK key inside CJK text (`沈念` in `我和沈念去后山`) matches as a
 *   plain substring would, which is the only sensible reading for scripts without spaces. It does
 *   not match when glued to ASCII letters, digits or `_` (`abc沈念`). We keep ST's behaviour rather
 *   than special-casing CJK, so activations agree with the host app.
 * - Order: candidates are considered by `order` descending (stable, so ties keep source order). That
 *   is the budget priority: a higher `order` is kept first when the budget runs out. The returned
 *   list is in ST's prompt order, the reverse: ascending `order`, so a higher `order` is inserted
 *   later, nearer the chat (ties come out in reverse source order, as ST's `unshift` does).
 * - Budget: once an entry does not fit, no further (lower-priority) entry is added, as in ST;
 *   `ignoreBudget` entries bypass it.
 *
 * Differences from SillyTavern (deliberately left out of this subset, or simplified):
 * - No recursive scanning (activated content is never scanned for more keys), so
 *   `excludeRecursion`, `preventRecursion` and `delayUntilRecursion` have no effect; entries with
 *   `delayUntilRecursion` are treated like any other entry instead of waiting for a recursion step.
 * - No probability rolls (`useProbability`/`probability` ignored: every match activates).
 * - No inclusion groups (`group`, `groupOverride`, `groupWeight`, group scoring).
 * - No timed effects (`sticky`, `cooldown`, `delay`) and no chat-metadata state between runs.
 * - No vector (semantic) activation for `vectorized` entries; they are matched by keys only.
 * - No min-activations depth skew, no max recursion steps.
 * - No `@@activate` / `@@dont_activate` decorators. Macros (`{{char}}`, `{{user}}`, …) are not
 *   this module's: the service substitutes them in keys and content before the scan, as ST does
 *   before matching and before measuring the budget (rules/macros.ts lists which).
 * - No extra scan sources (persona/character description, personality, depth prompt, scenario,
 *   creator notes: the `match*` flags are ignored), no author's note or extension-prompt injections.
 * - No character or tag filters (`characterFilter*`) and no generation-type `triggers`.
 * - No multi-book strategy (chat, persona, global and character lore ordering): the caller passes
 *   one list of entries in priority order.
 * - Budget: a plain number in the caller's unit (characters by default, or whatever `measure`
 *   counts, e.g. tokens), not ST's percentage of the context size and cap. Constant entries are
 *   always kept, like `ignoreBudget` ones; their size is counted first and the keyed entries share
 *   what is left. (ST counts constants in priority order and can drop them.) ST compares the
 *   running total with `>=`; here an entry fits while the total stays `<=` the budget.
 */
import { codePoints } from '../../../core/unicode.js';
import type { WorldInfoEntry } from './entries.js';

export interface ActivationMessage {
  name?: string;
  text: string;
  /** ST's `is_system`: hidden or narrator messages, left out of the scan as ST does. */
  isSystem?: boolean;
  /** Lines such as `{"system": "…"}` that are not real chat turns; also left out. */
  nonStandard?: boolean;
}

export interface ActivationOptions {
  /** How many most-recent messages are scanned when an entry has no `scanDepth`. ST default: 2. */
  scanDepth?: number;
  caseSensitive?: boolean;
  matchWholeWords?: boolean;
  /** Prefix each message with `name: ` as ST does by default. */
  includeNames?: boolean;
  /** Maximum total size of activated content; null or absent means no limit. */
  budget?: number | null;
  /** Size of one entry's content in budget units. Default: characters (Unicode code points). */
  measure?: (content: string) => number;
}

/** HOST: the app recorded which entries it activated; COMPUTED: this module computed them from the chat. */
export const activationSources = ['HOST', 'COMPUTED'] as const;
export type ActivationSource = (typeof activationSources)[number];

export type ActivationReason = 'constant' | 'keys';

export interface ActivatedEntry {
  uid: number;
  /** `comment`, else the first primary key, else `entry <uid>`. */
  name: string;
  position: number;
  constant: boolean;
  order: number;
  size: number;
  reason: ActivationReason;
  /** The primary key that matched (null for constants). */
  matchedKey: string | null;
  /** Secondary keys that matched (AND_ANY: the first; AND_ALL: all; NOT_* logics: none). */
  matchedSecondaryKeys: string[];
  entry: WorldInfoEntry;
}

export interface BudgetReport {
  limit: number | null;
  used: number;
  overflowed: boolean;
  /** Matched entries left out because the budget was exhausted, in priority order. */
  dropped: Array<{ uid: number; name: string; size: number }>;
}

export interface ActivationResult {
  activated: ActivatedEntry[];
  budget: BudgetReport;
}

export const DEFAULT_SCAN_DEPTH = 2;
export const MAX_SCAN_DEPTH = 1000;
const MATCHER = '\x01';
const JOINER = `\n${MATCHER}`;

/** ST's `parseRegexFromString`: a `/pattern/flags` key as a RegExp, or null when it is plain text. */
export function parseRegexKey(key: string): RegExp | null {
  const match = /^\/([\w\W]+?)\/([gimsuy]*)$/.exec(key);
  if (!match) return null;
  const [, body = '', flags] = match;
  if (/(^|[^\\])\//.test(body)) return null;
  try {
    // ST replaces only the first escaped slash; later `\/` are harmless escapes in a JS pattern.
    return new RegExp(body.replace('\\/', '/'), flags);
  } catch {
    return null;
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[/\-\\^$*+?.()|[\]{}]/g, '\\$&');
}

export interface KeyMatchSettings {
  caseSensitive: boolean;
  matchWholeWords: boolean;
}

/** ST's `WorldInfoBuffer.matchKeys` for one already-trimmed key. */
export function matchKey(haystack: string, key: string, settings: KeyMatchSettings): boolean {
  const regex = parseRegexKey(key);
  if (regex) return regex.test(haystack);
  const text = settings.caseSensitive ? haystack : haystack.toLowerCase();
  const needle = settings.caseSensitive ? key : key.toLowerCase();
  if (!settings.matchWholeWords || needle.split(/\s+/).length > 1) return text.includes(needle);
  return new RegExp(`(?:^|\\W)(${escapeRegex(needle)})(?:$|\\W)`).test(text);
}

function displayName(entry: WorldInfoEntry): string {
  const comment = entry.comment.trim();
  if (comment !== '') return comment;
  const firstKey = entry.key.find((key) => key.trim() !== '');
  return firstKey ?? `entry ${entry.uid}`;
}

interface KeyMatch {
  matchedKey: string;
  matchedSecondaryKeys: string[];
}

function matchEntryKeys(
  entry: WorldInfoEntry,
  haystack: string,
  settings: KeyMatchSettings,
): KeyMatch | null {
  const matches = (key: string) => {
    const trimmed = key.trim();
    return trimmed !== '' && matchKey(haystack, trimmed, settings);
  };
  const matchedKey = entry.key.find(matches);
  if (matchedKey === undefined) return null;
  if (!entry.selective || entry.keysecondary.length === 0) return { matchedKey, matchedSecondaryKeys: [] };

  const secondary = entry.keysecondary.filter(matches);
  switch (entry.selectiveLogic) {
    case 1:
      return secondary.length < entry.keysecondary.length ? { matchedKey, matchedSecondaryKeys: [] } : null;
    case 2:
      return secondary.length === 0 ? { matchedKey, matchedSecondaryKeys: [] } : null;
    case 3:
      return secondary.length === entry.keysecondary.length
        ? { matchedKey, matchedSecondaryKeys: secondary }
        : null;
    default:
      return secondary.length > 0 ? { matchedKey, matchedSecondaryKeys: secondary.slice(0, 1) } : null;
  }
}

/**
 * Builds ST's scan buffer for each depth on demand; entries share it per depth. Only the newest
 * MAX_SCAN_DEPTH eligible messages are ever read, so a caller may pass a whole long chat.
 */
function createScanBuffer(messages: readonly ActivationMessage[], includeNames: boolean) {
  const newestFirst: string[] = [];
  for (let i = messages.length - 1; i >= 0 && newestFirst.length < MAX_SCAN_DEPTH; i--) {
    const message = messages[i];
    if (!message || message.isSystem || message.nonStandard) continue;
    newestFirst.push(
      (includeNames && message.name ? `${message.name}: ${message.text}` : message.text).trim(),
    );
  }
  const cache = new Map<number, string>();
  return (depth: number): string => {
    const clamped = Math.min(Math.max(Math.trunc(depth), 0), MAX_SCAN_DEPTH);
    let text = cache.get(clamped);
    if (text === undefined) {
      text = clamped === 0 ? '' : MATCHER + newestFirst.slice(0, clamped).join(JOINER);
      cache.set(clamped, text);
    }
    return text;
  };
}

export function activateWorldInfo(
  entries: readonly WorldInfoEntry[],
  messages: readonly ActivationMessage[],
  options: ActivationOptions = {},
): ActivationResult {
  const scanText = createScanBuffer(messages, options.includeNames ?? true);
  const measure = options.measure ?? codePoints;
  const limit = options.budget ?? null;

  const byPriority = entries
    .map((entry, sourceIndex) => ({ entry, sourceIndex }))
    .sort((a, b) => b.entry.order - a.entry.order || a.sourceIndex - b.sourceIndex)
    .map(({ entry }) => entry);

  const candidates: ActivatedEntry[] = [];
  for (const entry of byPriority) {
    if (entry.disable) continue;
    const base = {
      uid: entry.uid,
      name: displayName(entry),
      position: entry.position,
      constant: entry.constant,
      order: entry.order,
      size: measure(entry.content),
      entry,
    };
    if (entry.constant) {
      candidates.push({ ...base, reason: 'constant', matchedKey: null, matchedSecondaryKeys: [] });
      continue;
    }
    const settings = {
      caseSensitive: entry.caseSensitive ?? options.caseSensitive ?? false,
      matchWholeWords: entry.matchWholeWords ?? options.matchWholeWords ?? false,
    };
    const match = matchEntryKeys(
      entry,
      scanText(entry.scanDepth ?? options.scanDepth ?? DEFAULT_SCAN_DEPTH),
      settings,
    );
    if (match) candidates.push({ ...base, reason: 'keys', ...match });
  }

  const exempt = (candidate: ActivatedEntry) => candidate.constant || candidate.entry.ignoreBudget;
  let used = candidates.filter(exempt).reduce((sum, candidate) => sum + candidate.size, 0);
  let overflowed = false;
  const dropped: BudgetReport['dropped'] = [];
  const kept = candidates.filter((candidate) => {
    if (exempt(candidate)) return true;
    if (!overflowed && (limit === null || used + candidate.size <= limit)) {
      used += candidate.size;
      return true;
    }
    overflowed = true;
    dropped.push({ uid: candidate.uid, name: candidate.name, size: candidate.size });
    return false;
  });

  return { activated: kept.reverse(), budget: { limit, used, overflowed, dropped } };
}
