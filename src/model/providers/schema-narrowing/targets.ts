export type NarrowingTarget = 'openai' | 'openai-strict' | 'anthropic' | 'anthropic-strict' | 'gemini';

export interface Rules {
  /** Non-strict OpenAI and Anthropic take JSON Schema as is; only the root shape is fixed. */
  walk: boolean;
  inlineRefs: boolean;
  mergeAllOf: boolean;
  oneOfToAnyOf: boolean;
  /** OpenAPI 3.0 dialect: nullable instead of type arrays, string-only enums, no const. */
  openApi: boolean;
  closeObjects: boolean;
  requireAll: boolean;
  /** Anthropic strict accepts minItems only as 0 or 1. */
  smallMinItems: boolean;
  formats: Readonly<Record<string, readonly string[]>> | null;
  dropped: ReadonlyMap<string, string>;
  /** Gemini's Schema is a closed set of fields; everything else is rejected. */
  allowed: ReadonlySet<string> | null;
}

type ReasonGroup = readonly [reason: string, keywords: readonly string[]];

function reasons(...groups: readonly ReasonGroup[]): ReadonlyMap<string, string> {
  return new Map(
    groups.flatMap(([reason, keywords]) => keywords.map((keyword) => [keyword, reason] as const)),
  );
}

const UNSUPPORTED_COMPOSITION: readonly ReasonGroup[] = [
  ['negated schemas are not supported', ['not']],
  ['conditional schemas are not supported', ['if', 'then', 'else']],
  [
    'dependencies between properties are not supported',
    ['dependentRequired', 'dependentSchemas', 'dependencies'],
  ],
  ['pattern-matched properties are not supported', ['patternProperties']],
  ['property name constraints are not supported', ['propertyNames']],
  ['unevaluated properties are not supported', ['unevaluatedProperties']],
  ['unevaluated items are not supported', ['unevaluatedItems']],
  ['contains constraints are not supported', ['contains', 'minContains', 'maxContains']],
  ['uniqueness constraints are not supported', ['uniqueItems']],
];

const OPENAI_STRICT_DROPPED = reasons(
  ...UNSUPPORTED_COMPOSITION,
  ['string length bounds are not supported in strict mode', ['minLength', 'maxLength']],
  ['object size bounds are not supported in strict mode', ['minProperties', 'maxProperties']],
);

const ANTHROPIC_STRICT_DROPPED = reasons(
  ...UNSUPPORTED_COMPOSITION,
  [
    'numeric bounds are not supported in strict mode',
    ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  ],
  ['string length bounds are not supported in strict mode', ['minLength', 'maxLength']],
  ['array length bounds other than minItems 0 or 1 are not supported in strict mode', ['maxItems']],
  ['object size bounds are not supported in strict mode', ['minProperties', 'maxProperties']],
);

const GEMINI_FIELDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

const GEMINI_DROPPED = reasons(
  ...UNSUPPORTED_COMPOSITION,
  ['Gemini does not accept a dialect declaration', ['$schema']],
  ['Gemini does not accept schema identifiers', ['$id']],
  ['definitions were inlined where they are referenced', ['$defs', 'definitions']],
  ['Gemini objects cannot constrain extra properties', ['additionalProperties']],
);

const NOTHING_DROPPED: ReadonlyMap<string, string> = new Map();

export const RULES: Readonly<Record<NarrowingTarget, Rules>> = {
  openai: {
    walk: false,
    inlineRefs: false,
    mergeAllOf: false,
    oneOfToAnyOf: false,
    openApi: false,
    closeObjects: false,
    requireAll: false,
    smallMinItems: false,
    formats: null,
    dropped: NOTHING_DROPPED,
    allowed: null,
  },
  anthropic: {
    walk: false,
    inlineRefs: false,
    mergeAllOf: false,
    oneOfToAnyOf: false,
    openApi: false,
    closeObjects: false,
    requireAll: false,
    smallMinItems: false,
    formats: null,
    dropped: NOTHING_DROPPED,
    allowed: null,
  },
  'openai-strict': {
    walk: true,
    inlineRefs: false,
    mergeAllOf: true,
    oneOfToAnyOf: true,
    openApi: false,
    closeObjects: true,
    requireAll: true,
    smallMinItems: false,
    formats: {
      string: ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'],
    },
    dropped: OPENAI_STRICT_DROPPED,
    allowed: null,
  },
  'anthropic-strict': {
    walk: true,
    inlineRefs: false,
    mergeAllOf: true,
    oneOfToAnyOf: true,
    openApi: false,
    closeObjects: true,
    requireAll: false,
    smallMinItems: true,
    formats: {
      string: ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'],
    },
    dropped: ANTHROPIC_STRICT_DROPPED,
    allowed: null,
  },
  gemini: {
    walk: true,
    inlineRefs: true,
    mergeAllOf: true,
    oneOfToAnyOf: true,
    openApi: true,
    closeObjects: false,
    requireAll: false,
    smallMinItems: false,
    formats: { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] },
    dropped: GEMINI_DROPPED,
    allowed: GEMINI_FIELDS,
  },
};
