/**
 * One SillyTavern world info entry, read from a world file's entry or a V2/V3 card book's entry
 * into every field of ST's `newWorldInfoEntryDefinition` with ST's defaults.
 *
 * Every field is checked: a value of the wrong type refuses the whole book with the field's path
 * (`entries["3"].key`, `data.character_book.entries[0].insertion_order`). null or absent takes the
 * default, as ST's `??` does. Forms ST itself accepts are converted and reported in the import's
 * notes: keys as one comma-separated string (split on commas, as ST's editor does), a card entry's
 * `position` other than before_char/after_char (after_char, as ST's `convertCharacterBook`).
 * `delayUntilRecursion` as a boolean is ST's own older export (`false` is 0, `true` level 1) and is
 * read without a note.
 */
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

export type WorldInfoErrorReason =
  | 'INVALID_JSON'
  | 'NOT_AN_OBJECT'
  | 'ENTRIES_MISSING'
  | 'ENTRY_NOT_OBJECT'
  /** A field of the wrong type; `path` names it (`data.character_book.entries[3].keys`). */
  | 'FIELD_TYPE'
  | 'INVALID_PNG'
  | 'NOT_A_CARD';

export class WorldInfoError extends DomainError {
  readonly reason: WorldInfoErrorReason;

  constructor(reason: WorldInfoErrorReason, message: string, path?: string) {
    super('BAD_USER_INPUT', message, path === undefined ? { reason } : { reason, path });
    this.name = 'WorldInfoError';
    this.reason = reason;
  }
}

/**
 * What a field holds. `strings` also takes a comma-separated string (ST's own editor reads keys
 * that way; the import reports the split). `level` is `delayUntilRecursion`: a number, or a boolean
 * as ST's own exports store it (`true` is level 1, `false` 0).
 */
type FieldKind =
  | 'string'
  | 'boolean'
  | 'number'
  | 'integer'
  | 'strings'
  | 'level'
  | 'nullableNumber'
  | 'nullableBoolean';

/** ST's `newWorldInfoEntryDefinition`, field by field, with its defaults. */
export const ENTRY_DEFAULTS = {
  key: [] as string[],
  keysecondary: [] as string[],
  comment: '',
  content: '',
  constant: false,
  vectorized: false,
  selective: true,
  selectiveLogic: WORLD_INFO_LOGIC.AND_ANY as number,
  addMemo: false,
  order: 100,
  position: WORLD_INFO_POSITION.before as number,
  disable: false,
  ignoreBudget: false,
  excludeRecursion: false,
  preventRecursion: false,
  matchPersonaDescription: false,
  matchCharacterDescription: false,
  matchCharacterPersonality: false,
  matchCharacterDepthPrompt: false,
  matchScenario: false,
  matchCreatorNotes: false,
  delayUntilRecursion: 0,
  probability: 100,
  useProbability: true,
  depth: 4,
  outletName: '',
  group: '',
  groupOverride: false,
  groupWeight: 100,
  scanDepth: null as number | null,
  caseSensitive: null as boolean | null,
  matchWholeWords: null as boolean | null,
  useGroupScoring: null as boolean | null,
  automationId: '',
  role: 0,
  sticky: null as number | null,
  cooldown: null as number | null,
  delay: null as number | null,
  characterFilterNames: [] as string[],
  characterFilterTags: [] as string[],
  characterFilterExclude: false,
  triggers: [] as string[],
};

export type WorldInfoEntryFields = typeof ENTRY_DEFAULTS;
export type FieldName = keyof WorldInfoEntryFields;

const FIELD_KINDS: Record<FieldName, FieldKind> = {
  key: 'strings',
  keysecondary: 'strings',
  comment: 'string',
  content: 'string',
  constant: 'boolean',
  vectorized: 'boolean',
  selective: 'boolean',
  selectiveLogic: 'integer',
  addMemo: 'boolean',
  order: 'number',
  position: 'integer',
  disable: 'boolean',
  ignoreBudget: 'boolean',
  excludeRecursion: 'boolean',
  preventRecursion: 'boolean',
  matchPersonaDescription: 'boolean',
  matchCharacterDescription: 'boolean',
  matchCharacterPersonality: 'boolean',
  matchCharacterDepthPrompt: 'boolean',
  matchScenario: 'boolean',
  matchCreatorNotes: 'boolean',
  delayUntilRecursion: 'level',
  probability: 'number',
  useProbability: 'boolean',
  depth: 'number',
  outletName: 'string',
  group: 'string',
  groupOverride: 'boolean',
  groupWeight: 'number',
  scanDepth: 'nullableNumber',
  caseSensitive: 'nullableBoolean',
  matchWholeWords: 'nullableBoolean',
  useGroupScoring: 'nullableBoolean',
  automationId: 'string',
  role: 'integer',
  sticky: 'nullableNumber',
  cooldown: 'nullableNumber',
  delay: 'nullableNumber',
  characterFilterNames: 'strings',
  characterFilterTags: 'strings',
  characterFilterExclude: 'boolean',
  triggers: 'strings',
};

const EXPECTED: Record<FieldKind, string> = {
  string: 'a string',
  boolean: 'true or false',
  number: 'a number',
  integer: 'an integer',
  strings: 'an array of strings',
  level: 'a number or a boolean',
  nullableNumber: 'a number or null',
  nullableBoolean: 'true, false or null',
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** Where an import is reading, and what it converted on the way (the import's report). */
export interface ReadScope {
  path: string;
  notes: string[];
}

export const fieldError = (path: string, expected: string, value: unknown) =>
  new WorldInfoError('FIELD_TYPE', `${path}: expected ${expected}, got ${describe(value)}`, path);

/**
 * One field of a source object, checked: undefined when absent or null (ST fills its default, as
 * its `??` does), the value when it has the field's type or a form ST itself converts (reported),
 * and a FIELD_TYPE error naming the field's path otherwise.
 */
export function readField(value: unknown, kind: FieldKind, path: string, notes: string[]): unknown {
  if (value === undefined || value === null) return undefined;
  switch (kind) {
    case 'string':
      if (typeof value === 'string') return value;
      break;
    case 'boolean':
    case 'nullableBoolean':
      if (typeof value === 'boolean') return value;
      break;
    case 'number':
    case 'nullableNumber':
      if (typeof value === 'number') return value;
      break;
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      break;
    case 'level':
      if (typeof value === 'number') return value;
      if (typeof value === 'boolean') return Number(value);
      break;
    case 'strings':
      if (typeof value === 'string') {
        const parts = value
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== '');
        notes.push(
          `${path}: a comma-separated string, read as ${parts.length} key${parts.length === 1 ? '' : 's'} as SillyTavern does`,
        );
        return parts;
      }
      if (Array.isArray(value)) {
        const wrong = value.findIndex((item) => typeof item !== 'string');
        if (wrong >= 0) throw fieldError(`${path}[${wrong}]`, 'a string', value[wrong]);
        return value;
      }
      break;
  }
  throw fieldError(path, EXPECTED[kind], value);
}

export function checkRanges(
  fields: WorldInfoEntryFields,
  path: string,
  names: Partial<Record<FieldName, string>>,
) {
  const name = (field: FieldName) => `${path}.${names[field] ?? field}`;
  if (fields.selectiveLogic < 0 || fields.selectiveLogic > 3)
    throw fieldError(name('selectiveLogic'), 'an integer from 0 to 3', fields.selectiveLogic);
  if (fields.position < 0) throw fieldError(name('position'), 'an integer from 0', fields.position);
}

/** The ST fields of a source object whose field names are ST's (`names` maps the others). */
export function readFields(
  sources: Array<{ object: JsonObject; path: string; names: Partial<Record<FieldName, string>> }>,
  notes: string[],
): Partial<WorldInfoEntryFields> {
  const fields: Record<string, unknown> = {};
  for (const { object, path, names } of sources) {
    for (const field of Object.keys(names) as FieldName[]) {
      const sourceName = names[field]!;
      if (!Object.hasOwn(object, sourceName) || fields[field] !== undefined) continue;
      const value = readField(object[sourceName], FIELD_KINDS[field], `${path}.${sourceName}`, notes);
      if (value !== undefined) fields[field] = value;
    }
  }
  return fields as Partial<WorldInfoEntryFields>;
}

const sameNames = Object.fromEntries(Object.keys(ENTRY_DEFAULTS).map((field) => [field, field])) as Record<
  FieldName,
  string
>;

export interface WorldInfoEntry extends WorldInfoEntryFields {
  uid: number;
  /** UI order in ST's editor; the entry's position in the source when the file has none. */
  displayIndex: number;
  /** The entry exactly as it was in the source, unknown fields included. */
  raw: JsonObject;
}

export function integerOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return null;
}

export function optionalObject(value: unknown, path: string): JsonObject {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) throw fieldError(path, 'an object', value);
  return value;
}

/** Files store the character filter as one object; ST's editor splits it into three fields. */
export const FILTER_NAMES = {
  characterFilterNames: 'names',
  characterFilterTags: 'tags',
  characterFilterExclude: 'isExclude',
};

export function displayIndexOf(value: unknown, path: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number') throw fieldError(path, 'a number', value);
  return value;
}

export function normalizeWorldEntry(
  raw: JsonObject,
  uid: number,
  displayIndex: number,
  scope: ReadScope = { path: 'entry', notes: [] },
): WorldInfoEntry {
  const filter = optionalObject(raw.characterFilter, `${scope.path}.characterFilter`);
  const fields = readFields(
    [
      { object: raw, path: scope.path, names: sameNames },
      { object: filter, path: `${scope.path}.characterFilter`, names: FILTER_NAMES },
    ],
    scope.notes,
  );
  const entry = { ...ENTRY_DEFAULTS, ...fields };
  checkRanges(entry, scope.path, {});
  return {
    ...entry,
    uid,
    displayIndex: displayIndexOf(raw.displayIndex, `${scope.path}.displayIndex`, displayIndex),
    raw,
  };
}
