import type { JsonObject } from '../../../core/json.js';
import {
  checkRanges,
  displayIndexOf,
  ENTRY_DEFAULTS,
  FILTER_NAMES,
  type FieldName,
  optionalObject,
  type ReadScope,
  readField,
  readFields,
  WORLD_INFO_POSITION,
  type WorldInfoEntry,
  type WorldInfoEntryFields,
} from './entries.js';

/** The entries of a character card's embedded book (V2/V3), read into SillyTavern's entry fields as its convertCharacterBook does. */

/** V2/V3 book entry names, and the snake_case `extensions.*` names ST writes for its own fields. */
const CARD_ENTRY_NAMES: Partial<Record<FieldName, string>> = {
  key: 'keys',
  keysecondary: 'secondary_keys',
  content: 'content',
  constant: 'constant',
  caseSensitive: 'case_sensitive',
};
const CARD_EXTENSION_NAMES: Partial<Record<FieldName, string>> = {
  position: 'position',
  excludeRecursion: 'exclude_recursion',
  preventRecursion: 'prevent_recursion',
  delayUntilRecursion: 'delay_until_recursion',
  probability: 'probability',
  useProbability: 'useProbability',
  depth: 'depth',
  selectiveLogic: 'selectiveLogic',
  outletName: 'outlet_name',
  group: 'group',
  groupOverride: 'group_override',
  groupWeight: 'group_weight',
  scanDepth: 'scan_depth',
  caseSensitive: 'case_sensitive',
  matchWholeWords: 'match_whole_words',
  useGroupScoring: 'use_group_scoring',
  automationId: 'automation_id',
  role: 'role',
  vectorized: 'vectorized',
  sticky: 'sticky',
  cooldown: 'cooldown',
  delay: 'delay',
  ignoreBudget: 'ignore_budget',
  matchPersonaDescription: 'match_persona_description',
  matchCharacterDescription: 'match_character_description',
  matchCharacterPersonality: 'match_character_personality',
  matchCharacterDepthPrompt: 'match_character_depth_prompt',
  matchScenario: 'match_scenario',
  matchCreatorNotes: 'match_creator_notes',
  triggers: 'triggers',
};

function cardText(raw: JsonObject, field: string, path: string): string | undefined {
  return readField(raw[field], 'string', `${path}.${field}`, []) as string | undefined;
}

export function normalizeCharacterBookEntry(
  raw: JsonObject,
  uid: number,
  index: number,
  scope: ReadScope = { path: 'entry', notes: [] },
): WorldInfoEntry {
  const { path, notes } = scope;
  const ext = optionalObject(raw.extensions, `${path}.extensions`);
  const filter = optionalObject(ext.character_filter, `${path}.extensions.character_filter`);
  // ext.case_sensitive wins over the entry's own, as in ST's convertCharacterBook.
  const fields = readFields(
    [
      { object: ext, path: `${path}.extensions`, names: CARD_EXTENSION_NAMES },
      { object: raw, path, names: CARD_ENTRY_NAMES },
      { object: filter, path: `${path}.extensions.character_filter`, names: FILTER_NAMES },
    ],
    notes,
  );
  const ownComment = cardText(raw, 'comment', path);
  const name = cardText(raw, 'name', path);
  const comment = ownComment !== undefined && ownComment !== '' ? ownComment : (name ?? '');
  const selective = readField(raw.selective, 'boolean', `${path}.selective`, notes) as boolean | undefined;
  const order = (readField(raw.insertion_order, 'number', `${path}.insertion_order`, notes) ??
    readField(raw.priority, 'number', `${path}.priority`, notes)) as number | undefined;
  const enabled = readField(raw.enabled, 'boolean', `${path}.enabled`, notes);
  if (fields.position === undefined) {
    const position = readField(raw.position, 'string', `${path}.position`, notes);
    if (position !== undefined && position !== 'before_char' && position !== 'after_char')
      notes.push(
        `${path}.position: "${position}" is neither before_char nor after_char; read as after_char, as SillyTavern does`,
      );
    fields.position = position === 'before_char' ? WORLD_INFO_POSITION.before : WORLD_INFO_POSITION.after;
  }
  const entry: WorldInfoEntryFields = {
    ...ENTRY_DEFAULTS,
    ...fields,
    comment,
    selective: selective ?? false,
    ...(order !== undefined ? { order } : {}),
    // Matches ST: an entry without `enabled: true` is imported disabled.
    disable: enabled !== true,
    addMemo: comment !== '',
  };
  checkRanges(entry, path, { ...CARD_ENTRY_NAMES, ...prefixed(CARD_EXTENSION_NAMES) });
  return {
    ...entry,
    uid,
    displayIndex: displayIndexOf(ext.display_index, `${path}.extensions.display_index`, index),
    raw,
  };
}

function prefixed(names: Partial<Record<FieldName, string>>): Partial<Record<FieldName, string>> {
  return Object.fromEntries(Object.entries(names).map(([field, name]) => [field, `extensions.${name}`]));
}
