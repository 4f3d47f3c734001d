/**
 * A SillyTavern character card (V1, V2 `chara_card_v2` or V3 `chara_card_v3`), read and written the
 * way SillyTavern does:
 * - V2 and V3 keep the character in `data`; a V1 card (no `spec`) has its fields at the top level,
 *   which ST reads as they are (the import's notes say so).
 * - Every field the card has is checked: a value of the wrong type refuses the card with its path
 *   (`data.alternate_greetings[1]`). A missing field or null is empty, as ST back-fills it.
 *   `data.tags` as one comma-separated string is split, as ST does, and noted.
 * - The card itself is kept as its JSON text, so every string comes back exactly as imported.
 * - Its V2 and V3 forms are the same object with `spec` and `spec_version` set, which is how ST
 *   writes its `chara` and `ccv3` PNG chunks; the V2 form leaves out the V3-only `data` fields,
 *   which V2 has no place for.
 */
import { isJsonObject, type JsonObject } from '../../../core/json.js';
import { fieldError, WorldInfoError } from './entries.js';

/** The PNG tEXt chunks a card can come from, in the order they are preferred. */
export const cardChunks = ['ccv3', 'chara'] as const;
export type CardChunk = (typeof cardChunks)[number];
/** How a card came: its JSON, or a PNG carrying it. */
export const cardFormats = ['JSON', 'PNG'] as const;
export type CardFormat = (typeof cardFormats)[number];

export const CARD_SPECS = { V2: 'chara_card_v2', V3: 'chara_card_v3' } as const;
export type CardSpecName = keyof typeof CARD_SPECS;
const SPEC_VERSIONS: Record<CardSpecName, string> = { V2: '2.0', V3: '3.0' };

/** Fields V3 added to `data`; a V2 reader has nowhere to put them. */
const V3_ONLY_FIELDS = [
  'nickname',
  'creator_notes_multilingual',
  'source',
  'group_only_greetings',
  'creation_date',
  'modification_date',
  'assets',
] as const;

export interface CharacterFields {
  name: string;
  description: string;
  personality: string;
  scenario: string;
  firstMessage: string;
  alternateGreetings: string[];
  exampleMessages: string;
  creatorNotes: string;
  systemPrompt: string;
  postHistoryInstructions: string;
  tags: string[];
  creator: string;
  characterVersion: string;
  extensions: JsonObject;
}

export interface ParsedCard {
  /** `chara_card_v2`, `chara_card_v3`, or null for a V1 card. */
  spec: string | null;
  specVersion: string | null;
  fields: CharacterFields;
  card: JsonObject;
  notes: string[];
}

const TEXT_FIELDS = {
  description: 'description',
  personality: 'personality',
  scenario: 'scenario',
  firstMessage: 'first_mes',
  exampleMessages: 'mes_example',
  creatorNotes: 'creator_notes',
  systemPrompt: 'system_prompt',
  postHistoryInstructions: 'post_history_instructions',
  creator: 'creator',
  characterVersion: 'character_version',
} as const;

function text(object: JsonObject, field: string, path: string): string {
  const value = object[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw fieldError(`${path}${field}`, 'a string', value);
  return value;
}

function strings(object: JsonObject, field: string, path: string, notes: string[]): string[] {
  const value = object[field];
  if (value === undefined || value === null) return [];
  if (field === 'tags' && typeof value === 'string') {
    notes.push(`${path}${field}: a comma-separated string, split into tags as SillyTavern does`);
    return value
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '');
  }
  if (!Array.isArray(value)) throw fieldError(`${path}${field}`, 'an array of strings', value);
  const wrong = value.findIndex((item) => typeof item !== 'string');
  if (wrong >= 0) throw fieldError(`${path}${field}[${wrong}]`, 'a string', value[wrong]);
  return value as string[];
}

function specOf(card: JsonObject): { spec: string | null; data: JsonObject; path: string } {
  const { spec } = card;
  if (spec === undefined || spec === null) return { spec: null, data: card, path: '' };
  if (spec !== CARD_SPECS.V2 && spec !== CARD_SPECS.V3)
    throw fieldError('spec', `"${CARD_SPECS.V2}" or "${CARD_SPECS.V3}"`, spec);
  if (!isJsonObject(card.data)) throw fieldError('data', 'an object', card.data);
  return { spec, data: card.data, path: 'data.' };
}

export function readCard(card: JsonObject): ParsedCard {
  const { spec, data, path } = specOf(card);
  const notes: string[] = [];
  if (spec === null)
    notes.push('a V1 card (no spec): its fields are read from the top level, as SillyTavern does');
  const name = text(data, 'name', path);
  if (name.trim() === '')
    throw new WorldInfoError('NOT_A_CARD', `${path}name: a character card needs a name`, `${path}name`);
  const extensions = data.extensions ?? {};
  if (!isJsonObject(extensions)) throw fieldError(`${path}extensions`, 'an object', extensions);
  const texts = Object.fromEntries(
    Object.entries(TEXT_FIELDS).map(([field, source]) => [field, text(data, source, path)]),
  ) as Record<keyof typeof TEXT_FIELDS, string>;
  const specVersion = card.spec_version;
  if (specVersion !== undefined && specVersion !== null && typeof specVersion !== 'string')
    throw fieldError('spec_version', 'a string', specVersion);
  return {
    spec,
    specVersion: specVersion ?? null,
    fields: {
      name,
      ...texts,
      alternateGreetings: strings(data, 'alternate_greetings', path, notes),
      tags: strings(data, 'tags', path, notes),
      extensions,
    },
    card,
    notes,
  };
}

export function parseCardJson(json: string): ParsedCard {
  let value: unknown;
  try {
    value = JSON.parse(json.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new WorldInfoError(
      'INVALID_JSON',
      `the character card is not valid JSON (${(error as Error).message})`,
    );
  }
  if (!isJsonObject(value))
    throw new WorldInfoError('NOT_AN_OBJECT', 'a character card must be a JSON object');
  return readCard(value);
}

/**
 * The card in V2 or V3 form. A V1 card gets a `data` object built from its fields (its top-level
 * fields stay, as ST's own exports keep them for V1 readers).
 */
export function cardAs(card: JsonObject, target: CardSpecName): JsonObject {
  const parsed = readCard(card);
  const data: JsonObject = parsed.spec === null ? v1Data(parsed) : { ...(card.data as JsonObject) };
  if (target === 'V2') for (const field of V3_ONLY_FIELDS) delete data[field];
  if (target === 'V3' && !Array.isArray(data.group_only_greetings)) data.group_only_greetings = [];
  return { ...card, spec: CARD_SPECS[target], spec_version: SPEC_VERSIONS[target], data };
}

function v1Data({ fields }: ParsedCard): JsonObject {
  const data: JsonObject = { name: fields.name };
  for (const [field, source] of Object.entries(TEXT_FIELDS))
    data[source] = fields[field as keyof typeof TEXT_FIELDS];
  data.alternate_greetings = fields.alternateGreetings;
  data.tags = fields.tags;
  data.extensions = fields.extensions;
  return data;
}
