/**
 * Normalises SillyTavern lorebooks into one entry type.
 *
 * Inputs: world info files (`{"entries": {"<uid>": entry}}`, both the old minimal shape and the
 * current full export), bare V2/V3 character books (`{"entries": [...]}`) and the
 * `data.character_book` of a character card. Every entry gets every field of ST's
 * `newWorldInfoEntryDefinition` with ST's defaults, plus `uid`, `displayIndex` and the untouched
 * source object as `raw`. Card-book entries are mapped the way ST's `convertCharacterBook` does it
 * (`keys` → `key`, `insertion_order` → `order`, `enabled` → `!disable`, snake_case `extensions.*` →
 * camelCase fields, `position` "before_char"/"after_char" → 0/1 unless `extensions.position` is set).
 *
 * A value of the wrong type falls back to the field's default instead of failing the whole book:
 * ST itself back-fills missing fields on load, and `raw` keeps the original either way.
 * `delayUntilRecursion` is normalised to a number (older files store `false`; ST treats `true` as
 * level 1) and `role: null` (as in Eldoria.modern.json) to ST's default 0.
 */
import { z } from 'zod';
import { DomainError } from '../../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../../core/json.js';

export const WORLD_INFO_POSITION = {
  before: 0,
  after: 1,
  ANTop: 2,
  ANBottom: 3,
  atDepth: 4,
  EMTop: 5,
  EMBottom: 6,
  outlet: 7,
} as const;

/** The names tools and the API give the WORLD_INFO_POSITION values, in value order. */
export const worldInfoPositionNames = [
  'before_char',
  'after_char',
  'an_top',
  'an_bottom',
  'at_depth',
  'em_top',
  'em_bottom',
  'outlet',
] as const;

export const positionName = (position: number): string =>
  worldInfoPositionNames[position] ?? `position_${position}`;

export const WORLD_INFO_LOGIC = { AND_ANY: 0, NOT_ALL: 1, NOT_ANY: 2, AND_ALL: 3 } as const;

export type WorldInfoErrorReason = 'INVALID_JSON' | 'NOT_AN_OBJECT' | 'ENTRIES_MISSING' | 'ENTRY_NOT_OBJECT';

export class WorldInfoError extends DomainError {
  readonly reason: WorldInfoErrorReason;

  constructor(reason: WorldInfoErrorReason, message: string) {
    super('BAD_USER_INPUT', message, { reason });
    this.name = 'WorldInfoError';
    this.reason = reason;
  }
}

/** ST accepts comma-separated strings where arrays are expected (hand-written or very old files). */
function toStringList(value: unknown): unknown {
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  }
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string');
  return value;
}

const flag = (fallback: boolean) => z.boolean().catch(fallback);
const count = (fallback: number) => z.number().catch(fallback);
const text = (fallback: string) => z.string().catch(fallback);
const stringList = z.preprocess(toStringList, z.array(z.string())).catch([]);
const optionalNumber = z.number().nullable().catch(null);
const optionalFlag = z.boolean().nullable().catch(null);

/** ST's `newWorldInfoEntryDefinition`, field by field, with its defaults. */
const entryFieldsSchema = z.object({
  key: stringList,
  keysecondary: stringList,
  comment: text(''),
  content: text(''),
  constant: flag(false),
  vectorized: flag(false),
  selective: flag(true),
  selectiveLogic: z.number().int().min(0).max(3).catch(WORLD_INFO_LOGIC.AND_ANY),
  addMemo: flag(false),
  order: count(100),
  position: z.number().int().min(0).catch(WORLD_INFO_POSITION.before),
  disable: flag(false),
  ignoreBudget: flag(false),
  excludeRecursion: flag(false),
  preventRecursion: flag(false),
  matchPersonaDescription: flag(false),
  matchCharacterDescription: flag(false),
  matchCharacterPersonality: flag(false),
  matchCharacterDepthPrompt: flag(false),
  matchScenario: flag(false),
  matchCreatorNotes: flag(false),
  delayUntilRecursion: z
    .union([z.number(), z.boolean()])
    .transform((value) => (typeof value === 'boolean' ? Number(value) : value))
    .catch(0),
  probability: count(100),
  useProbability: flag(true),
  depth: count(4),
  outletName: text(''),
  group: text(''),
  groupOverride: flag(false),
  groupWeight: count(100),
  scanDepth: optionalNumber,
  caseSensitive: optionalFlag,
  matchWholeWords: optionalFlag,
  useGroupScoring: optionalFlag,
  automationId: text(''),
  role: z.number().int().catch(0),
  sticky: optionalNumber,
  cooldown: optionalNumber,
  delay: optionalNumber,
  characterFilterNames: stringList,
  characterFilterTags: stringList,
  characterFilterExclude: flag(false),
  triggers: stringList,
});

export type WorldInfoEntryFields = z.output<typeof entryFieldsSchema>;

export interface WorldInfoEntry extends WorldInfoEntryFields {
  uid: number;
  /** UI order in ST's editor; the entry's position in the source when the file has none. */
  displayIndex: number;
  /** The entry exactly as it was in the source, unknown fields included. */
  raw: JsonObject;
}

export type WorldInfoSource = 'world' | 'character_book';

export interface WorldInfoBook {
  /** The file name the caller gives for a world file, `character_book.name` for a card book. */
  name: string | null;
  source: WorldInfoSource;
  entries: WorldInfoEntry[];
  raw: JsonObject;
}

function integerOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return null;
}

/** Files store the character filter as one object; ST's editor splits it into three fields. */
function characterFilterFields(filter: unknown): JsonObject {
  if (!isJsonObject(filter)) return {};
  return {
    characterFilterNames: filter.names,
    characterFilterTags: filter.tags,
    characterFilterExclude: filter.isExclude,
  };
}

export function normalizeWorldEntry(raw: JsonObject, uid: number, displayIndex: number): WorldInfoEntry {
  const fields = entryFieldsSchema.parse({ ...raw, ...characterFilterFields(raw.characterFilter) });
  const storedIndex = raw.displayIndex;
  return {
    ...fields,
    uid,
    displayIndex: typeof storedIndex === 'number' ? storedIndex : displayIndex,
    raw,
  };
}

export function normalizeCharacterBookEntry(raw: JsonObject, uid: number, index: number): WorldInfoEntry {
  const ext = isJsonObject(raw.extensions) ? raw.extensions : {};
  const comment = typeof raw.comment === 'string' && raw.comment !== '' ? raw.comment : raw.name;
  const fields = entryFieldsSchema.parse({
    key: raw.keys,
    keysecondary: raw.secondary_keys,
    comment,
    content: raw.content,
    constant: raw.constant,
    selective: raw.selective ?? false,
    order: raw.insertion_order ?? raw.priority,
    position:
      ext.position ??
      (raw.position === 'before_char' ? WORLD_INFO_POSITION.before : WORLD_INFO_POSITION.after),
    // Matches ST: an entry without `enabled: true` is imported disabled.
    disable: raw.enabled !== true,
    addMemo: typeof comment === 'string' && comment !== '',
    excludeRecursion: ext.exclude_recursion,
    preventRecursion: ext.prevent_recursion,
    delayUntilRecursion: ext.delay_until_recursion,
    probability: ext.probability,
    useProbability: ext.useProbability,
    depth: ext.depth,
    selectiveLogic: ext.selectiveLogic,
    outletName: ext.outlet_name,
    group: ext.group,
    groupOverride: ext.group_override,
    groupWeight: ext.group_weight,
    scanDepth: ext.scan_depth,
    caseSensitive: ext.case_sensitive ?? raw.case_sensitive,
    matchWholeWords: ext.match_whole_words,
    useGroupScoring: ext.use_group_scoring,
    automationId: ext.automation_id,
    role: ext.role,
    vectorized: ext.vectorized,
    sticky: ext.sticky,
    cooldown: ext.cooldown,
    delay: ext.delay,
    ignoreBudget: ext.ignore_budget,
    matchPersonaDescription: ext.match_persona_description,
    matchCharacterDescription: ext.match_character_description,
    matchCharacterPersonality: ext.match_character_personality,
    matchCharacterDepthPrompt: ext.match_character_depth_prompt,
    matchScenario: ext.match_scenario,
    matchCreatorNotes: ext.match_creator_notes,
    triggers: ext.triggers,
    ...characterFilterFields(ext.character_filter),
  });
  const displayIndex = ext.display_index;
  return { ...fields, uid, displayIndex: typeof displayIndex === 'number' ? displayIndex : index, raw };
}

function requireObjectEntry(value: unknown, where: string): JsonObject {
  if (!isJsonObject(value))
    throw new WorldInfoError('ENTRY_NOT_OBJECT', `world info entry ${where} is not an object`);
  return value;
}

function normalizeWorldEntries(entries: JsonObject): WorldInfoEntry[] {
  return Object.entries(entries).map(([mapKey, value], index) => {
    const raw = requireObjectEntry(value, `"${mapKey}"`);
    const uid = integerOrNull(raw.uid) ?? integerOrNull(mapKey) ?? index;
    return normalizeWorldEntry(raw, uid, index);
  });
}

/** Ids as ST assigns them: the entry's own `id`, otherwise the smallest id no other entry uses. */
function normalizeCharacterBookEntries(entries: unknown[]): WorldInfoEntry[] {
  const raws = entries.map((value, index) => requireObjectEntry(value, `#${index}`));
  const used = new Set(raws.map((raw) => integerOrNull(raw.id)).filter((id) => id !== null));
  let nextFree = 0;
  return raws.map((raw, index) => {
    let uid = integerOrNull(raw.id);
    if (uid === null) {
      while (used.has(nextFree)) nextFree++;
      uid = nextFree;
      used.add(uid);
    }
    return normalizeCharacterBookEntry(raw, uid, index);
  });
}

/**
 * Normalises a parsed world info file (`entries` is a uid-keyed object) or a bare character book
 * (`entries` is an array). `name` is the world's name, which ST takes from the file name.
 */
export function normalizeWorldInfo(value: unknown, name: string | null = null): WorldInfoBook {
  if (!isJsonObject(value))
    throw new WorldInfoError('NOT_AN_OBJECT', 'a world info file must be a JSON object');
  const { entries } = value;
  if (Array.isArray(entries)) {
    const bookName = typeof value.name === 'string' && value.name !== '' ? value.name : name;
    return {
      name: bookName,
      source: 'character_book',
      entries: normalizeCharacterBookEntries(entries),
      raw: value,
    };
  }
  if (!isJsonObject(entries)) {
    throw new WorldInfoError('ENTRIES_MISSING', 'a world info file needs an "entries" object or array');
  }
  return { name, source: 'world', entries: normalizeWorldEntries(entries), raw: value };
}

export function parseWorldInfoJson(text: string, name: string | null = null): WorldInfoBook {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new WorldInfoError('INVALID_JSON', `world info file is not valid JSON (${detail})`);
  }
  return normalizeWorldInfo(value, name);
}

/**
 * The lorebook embedded in a V2/V3 character card (`data.character_book`), or null when the card has
 * none. Named like ST's "Import Card Lore": the book's own name, else "<character>'s Lorebook".
 */
export function extractCharacterBook(card: unknown): WorldInfoBook | null {
  if (!isJsonObject(card))
    throw new WorldInfoError('NOT_AN_OBJECT', 'a character card must be a JSON object');
  const data = isJsonObject(card.data) ? card.data : null;
  const book = data?.character_book;
  if (!isJsonObject(book)) return null;
  if (!Array.isArray(book.entries)) {
    throw new WorldInfoError('ENTRIES_MISSING', 'the character book has no "entries" array');
  }
  const characterName =
    typeof data?.name === 'string' ? data.name : typeof card.name === 'string' ? card.name : '';
  const name = typeof book.name === 'string' && book.name !== '' ? book.name : `${characterName}'s Lorebook`;
  return { name, source: 'character_book', entries: normalizeCharacterBookEntries(book.entries), raw: book };
}
