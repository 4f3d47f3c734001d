import type { JsonSchema } from '../../core/tool-spec.js';
import { isRecord, type JsonObject } from './common.js';

export type NarrowingTarget = 'openai' | 'openai-strict' | 'anthropic' | 'anthropic-strict' | 'gemini';

export interface NarrowingEntry {
  /** JSON Pointer of the affected node in the narrowed schema ('' is the root). */
  path: string;
  action: 'dropped' | 'rewritten';
  keyword: string;
  detail: string;
}

export interface NarrowingResult {
  schema: JsonSchema;
  report: NarrowingEntry[];
}

interface Rules {
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

const RULES: Readonly<Record<NarrowingTarget, Rules>> = {
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

interface Context {
  rules: Rules;
  root: JsonObject;
  report: NarrowingEntry[];
}

function pointer(path: string, ...segments: Array<string | number>): string {
  return segments.reduce<string>(
    (acc, seg) => `${acc}/${String(seg).replaceAll('~', '~0').replaceAll('/', '~1')}`,
    path,
  );
}

function resolveRef(root: JsonObject, ref: string): JsonObject | null {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return null;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const seg = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(seg)];
    else if (isRecord(node)) node = node[seg];
    else return null;
  }
  return isRecord(node) ? node : null;
}

function typesOf(node: JsonObject): string[] {
  if (typeof node.type === 'string') return [node.type];
  return Array.isArray(node.type) ? node.type.filter((t): t is string => typeof t === 'string') : [];
}

function isObjectNode(node: JsonObject): boolean {
  return typesOf(node).includes('object') || isRecord(node.properties);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** allOf members that are local references are merged by content. */
function derefForMerge(root: JsonObject, member: JsonObject): JsonObject {
  if (typeof member.$ref !== 'string') return member;
  const target = resolveRef(root, member.$ref);
  if (target === null) return member;
  const { $ref: _ref, ...siblings } = member;
  return { ...target, ...siblings };
}

/**
 * Shallow merge with a documented precedence: properties are unioned (a property defined twice is
 * merged the same way), required lists are unioned, and for any other keyword the node's own value
 * wins, then the first member that sets it.
 */
function mergeInto(base: JsonObject, members: readonly JsonObject[]): JsonObject {
  const out: JsonObject = { ...base };
  for (const member of members) {
    for (const [key, value] of Object.entries(member)) {
      if (key === 'allOf') continue;
      if (key === 'properties' && isRecord(value)) {
        const props: JsonObject = { ...(isRecord(out.properties) ? out.properties : {}) };
        for (const [name, schema] of Object.entries(value)) {
          const existing = props[name];
          props[name] =
            isRecord(existing) && isRecord(schema) ? mergeInto(existing, [schema]) : (existing ?? schema);
        }
        out.properties = props;
      } else if (key === 'required' && Array.isArray(value)) {
        out.required = [...new Set([...stringList(out.required), ...stringList(value)])];
      } else if (!(key in out)) {
        out[key] = value;
      }
    }
  }
  return out;
}

function mergeAllOf(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...base } = node;
  const members = allOf.filter(isRecord).map((m) => derefForMerge(ctx.root, m));
  ctx.report.push({
    path,
    action: 'rewritten',
    keyword: 'allOf',
    detail: `merged ${members.length} subschemas into one (properties and required lists unioned)`,
  });
  return mergeInto(base, members);
}

/**
 * Every provider wants an object at the top of a tool's parameters, so a top-level union becomes
 * one object: all branches' properties, and only what every branch requires stays required.
 */
function flattenRootUnion(node: JsonObject, ctx: Context): JsonObject {
  const keyword = Array.isArray(node.anyOf) ? 'anyOf' : Array.isArray(node.oneOf) ? 'oneOf' : null;
  if (keyword === null) return node;
  const branches = (node[keyword] as unknown[])
    .filter(isRecord)
    .map((b) => derefForMerge(ctx.root, b))
    .filter(isObjectNode);
  const { [keyword]: _union, ...base } = node;
  const properties: JsonObject = { ...(isRecord(base.properties) ? base.properties : {}) };
  for (const branch of branches) {
    if (!isRecord(branch.properties)) continue;
    for (const [name, schema] of Object.entries(branch.properties)) {
      if (!(name in properties)) properties[name] = schema;
    }
  }
  const required = branches.reduce<string[] | null>((acc, b) => {
    const own = stringList(b.required);
    return acc === null ? own : acc.filter((r) => own.includes(r));
  }, null);
  ctx.report.push({
    path: '',
    action: 'rewritten',
    keyword,
    detail:
      'top-level union flattened into one object: properties merged, only properties every branch requires stay required',
  });
  const out: JsonObject = { ...base, type: 'object', properties };
  const allRequired = [...new Set([...stringList(base.required), ...(required ?? [])])];
  if (allRequired.length > 0) out.required = allRequired;
  else delete out.required;
  return out;
}

function normalizeRoot(node: JsonObject, ctx: Context): JsonObject {
  let out = mergeAllOf(node, '', ctx);
  out = flattenRootUnion(out, ctx);
  if (out.type === undefined) {
    ctx.report.push({
      path: '',
      action: 'rewritten',
      keyword: 'type',
      detail: 'tool parameters must be an object; type "object" added',
    });
    out = { type: 'object', ...out };
  }
  return out;
}

function permissiveObject(node: JsonObject): JsonObject {
  return typeof node.description === 'string'
    ? { type: 'object', description: node.description }
    : { type: 'object' };
}

function inlineRef(
  node: JsonObject,
  path: string,
  ctx: Context,
  stack: readonly string[],
): { node: JsonObject; stack: readonly string[]; done: boolean } {
  const ref = node.$ref as string;
  const target = resolveRef(ctx.root, ref);
  if (target === null || stack.includes(ref)) {
    const why = target === null ? 'unresolvable reference' : 'recursive reference';
    ctx.report.push({
      path,
      action: 'rewritten',
      keyword: '$ref',
      detail: `${why} ${ref} replaced by a permissive object`,
    });
    return { node: permissiveObject(node), stack, done: true };
  }
  const { $ref: _ref, ...siblings } = node;
  ctx.report.push({ path, action: 'rewritten', keyword: '$ref', detail: `inlined ${ref}` });
  return { node: { ...target, ...siblings }, stack: [...stack, ref], done: false };
}

function foldTypeArray(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!Array.isArray(node.type)) return node;
  const original = node.type;
  const nonNull = original.filter((t) => t !== 'null');
  const out: JsonObject = { ...node };
  delete out.type;
  if (nonNull.length === 1) out.type = nonNull[0];
  else if (nonNull.length > 1 && out.anyOf === undefined) out.anyOf = nonNull.map((t) => ({ type: t }));
  else if (nonNull.length > 1) out.type = nonNull[0];
  if (nonNull.length !== original.length) out.nullable = true;
  const became =
    out.type !== undefined
      ? `type ${JSON.stringify(out.type)}`
      : out.anyOf !== undefined
        ? 'anyOf of each type'
        : 'no type';
  ctx.report.push({
    path,
    action: 'rewritten',
    keyword: 'type',
    detail: `type array ${JSON.stringify(original)} became ${became}${out.nullable === true ? ' with nullable: true' : ''}`,
  });
  return out;
}

function isNullBranch(branch: unknown): boolean {
  return isRecord(branch) && branch.type === 'null';
}

/** Returns null when there is no null branch to fold. */
function foldNullBranches(node: JsonObject, path: string, ctx: Context): JsonObject | null {
  if (!Array.isArray(node.anyOf) || !node.anyOf.some(isNullBranch)) return null;
  const rest = node.anyOf.filter((b) => !isNullBranch(b));
  const { anyOf: _anyOf, ...base } = node;
  ctx.report.push({
    path,
    action: 'rewritten',
    keyword: 'anyOf',
    detail: 'null branch became nullable: true',
  });
  const only = rest[0];
  if (rest.length === 1 && isRecord(only)) return { ...only, ...base, nullable: true };
  return { ...base, anyOf: rest, nullable: true };
}

function constToEnum(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!('const' in node)) return node;
  const { const: value, ...rest } = node;
  if (typeof value !== 'string') {
    ctx.report.push({ path, action: 'dropped', keyword: 'const', detail: 'Gemini enums hold strings only' });
    const inferred =
      typeof value === 'boolean'
        ? 'boolean'
        : Number.isInteger(value)
          ? 'integer'
          : typeof value === 'number'
            ? 'number'
            : null;
    if (rest.type !== undefined || inferred === null) return rest;
    ctx.report.push({
      path,
      action: 'rewritten',
      keyword: 'type',
      detail: `type "${inferred}" taken from the const value`,
    });
    return { type: inferred, ...rest };
  }
  ctx.report.push({
    path,
    action: 'rewritten',
    keyword: 'const',
    detail: `became enum ${JSON.stringify([value])}`,
  });
  return { ...rest, enum: [value] };
}

function checkFormat(node: JsonObject, path: string, ctx: Context): JsonObject {
  const formats = ctx.rules.formats;
  if (formats === null || typeof node.format !== 'string') return node;
  const format = node.format;
  if (typesOf(node).some((t) => formats[t]?.includes(format))) return node;
  const { format: _format, ...rest } = node;
  ctx.report.push({
    path,
    action: 'dropped',
    keyword: 'format',
    detail: `format "${format}" is not supported`,
  });
  return rest;
}

function dropUnsupported(node: JsonObject, path: string, ctx: Context): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    const known = ctx.rules.dropped.get(key);
    const foreign = ctx.rules.allowed !== null && !ctx.rules.allowed.has(key);
    const badMinItems = key === 'minItems' && ctx.rules.smallMinItems && value !== 0 && value !== 1;
    if (known !== undefined || foreign || badMinItems) {
      const detail = badMinItems
        ? 'only minItems 0 or 1 is supported in strict mode'
        : (known ?? "not part of Gemini's Schema subset");
      ctx.report.push({ path, action: 'dropped', keyword: key, detail });
    } else {
      out[key] = value;
    }
  }
  return out;
}

function makeNullable(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const types = typesOf(schema);
  if (types.includes('null')) return schema;
  if (types.length === 0 || '$ref' in schema || 'const' in schema) {
    if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
    return { anyOf: [schema, { type: 'null' }] };
  }
  const out: JsonObject = { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
  return out;
}

function closeObject(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!isObjectNode(node)) return node;
  const out: JsonObject = { ...node };
  if (out.additionalProperties !== false) {
    const was = out.additionalProperties === undefined ? 'unset' : JSON.stringify(out.additionalProperties);
    ctx.report.push({
      path,
      action: 'rewritten',
      keyword: 'additionalProperties',
      detail: `strict mode needs additionalProperties: false (was ${was})`,
    });
    out.additionalProperties = false;
  }
  if (ctx.rules.requireAll && isRecord(out.properties)) {
    const required = stringList(out.required);
    const properties: JsonObject = { ...out.properties };
    for (const name of Object.keys(properties)) {
      if (required.includes(name)) continue;
      properties[name] = makeNullable(properties[name]);
      required.push(name);
      ctx.report.push({
        path: pointer(path, 'properties', name),
        action: 'rewritten',
        keyword: 'required',
        detail: 'optional property made required and nullable (strict mode requires every property)',
      });
    }
    out.properties = properties;
    out.required = required;
  }
  return out;
}

function typeOpenApiEnum(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!Array.isArray(node.enum)) return node;
  if (!node.enum.every((v) => typeof v === 'string')) {
    const { enum: _enum, ...rest } = node;
    ctx.report.push({ path, action: 'dropped', keyword: 'enum', detail: 'Gemini enums hold strings only' });
    return rest;
  }
  if (node.type !== undefined) return node;
  ctx.report.push({
    path,
    action: 'rewritten',
    keyword: 'type',
    detail: 'type "string" added for a string enum',
  });
  return { type: 'string', ...node };
}

function dropEmptyProperties(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!isRecord(node.properties) || Object.keys(node.properties).length > 0) return node;
  const { properties: _properties, ...rest } = node;
  ctx.report.push({
    path,
    action: 'dropped',
    keyword: 'properties',
    detail: 'Gemini rejects an empty properties map',
  });
  return rest;
}

function narrowChildren(node: JsonObject, path: string, ctx: Context, stack: readonly string[]): JsonObject {
  const out: JsonObject = { ...node };
  if (isRecord(out.properties)) {
    const properties: JsonObject = {};
    for (const [name, schema] of Object.entries(out.properties)) {
      properties[name] = narrowNode(schema, pointer(path, 'properties', name), ctx, stack);
    }
    out.properties = properties;
  }
  if (isRecord(out.items)) out.items = narrowNode(out.items, pointer(path, 'items'), ctx, stack);
  if (Array.isArray(out.anyOf)) {
    out.anyOf = out.anyOf.map((branch, i) => narrowNode(branch, pointer(path, 'anyOf', i), ctx, stack));
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const defined = out[defs];
    if (!isRecord(defined)) continue;
    const narrowed: JsonObject = {};
    for (const [name, schema] of Object.entries(defined)) {
      narrowed[name] = narrowNode(schema, pointer(path, defs, name), ctx, stack);
    }
    out[defs] = narrowed;
  }
  return out;
}

function narrowNode(value: unknown, path: string, ctx: Context, parentStack: readonly string[]): unknown {
  if (!isRecord(value)) return value;
  const { rules } = ctx;
  let node = value;
  let stack = parentStack;
  while (rules.inlineRefs && typeof node.$ref === 'string') {
    const inlined = inlineRef(node, path, ctx, stack);
    if (inlined.done) return inlined.node;
    node = inlined.node;
    stack = inlined.stack;
  }
  if (path === '') node = normalizeRoot(node, ctx);
  if (rules.mergeAllOf) node = mergeAllOf(node, path, ctx);
  if (rules.oneOfToAnyOf && Array.isArray(node.oneOf)) {
    const { oneOf, ...rest } = node;
    if (rest.anyOf === undefined) {
      ctx.report.push({
        path,
        action: 'rewritten',
        keyword: 'oneOf',
        detail: 'became anyOf (exclusivity is not enforced)',
      });
      node = { ...rest, anyOf: oneOf };
    } else {
      ctx.report.push({
        path,
        action: 'dropped',
        keyword: 'oneOf',
        detail: 'anyOf is already present on this node',
      });
      node = rest;
    }
  }
  if (rules.openApi) {
    const folded = foldNullBranches(node, path, ctx);
    // The surviving branch moves up into this node and still needs every step.
    if (folded !== null) return narrowNode(folded, path, ctx, stack);
    node = constToEnum(node, path, ctx);
    node = foldTypeArray(node, path, ctx);
  }
  node = checkFormat(node, path, ctx);
  node = dropUnsupported(node, path, ctx);
  node = narrowChildren(node, path, ctx, stack);
  if (rules.closeObjects) node = closeObject(node, path, ctx);
  if (rules.openApi) {
    node = typeOpenApiEnum(node, path, ctx);
    node = dropEmptyProperties(node, path, ctx);
  }
  return node;
}

/**
 * Deterministic: the same schema and target always give the same schema and report. Entries come
 * in traversal order: a node's own keywords, then its children, then the closing of the node
 * itself (strict targets).
 */
export function narrowSchema(schema: JsonSchema, target: NarrowingTarget): NarrowingResult {
  const ctx: Context = { rules: RULES[target], root: schema, report: [] };
  if (!ctx.rules.walk) return { schema: normalizeRoot(schema, ctx), report: ctx.report };
  const narrowed = narrowNode(schema, '', ctx, ['#']);
  return { schema: isRecord(narrowed) ? narrowed : {}, report: ctx.report };
}

function findRecursion(node: unknown, root: JsonObject, stack: readonly string[]): string | null {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = findRecursion(item, root, stack);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isRecord(node)) return null;
  if (typeof node.$ref === 'string') {
    if (stack.includes(node.$ref)) return node.$ref;
    const target = resolveRef(root, node.$ref);
    if (target !== null) {
      const found = findRecursion(target, root, [...stack, node.$ref]);
      if (found !== null) return found;
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$defs' || key === 'definitions') continue;
    const found = findRecursion(value, root, stack);
    if (found !== null) return found;
  }
  return null;
}

function findOpenNode(node: unknown, path: string, isRoot: boolean): string | null {
  if (!isRecord(node)) return null;
  if (isObjectNode(node)) {
    const extra = node.additionalProperties;
    if (extra === true || isRecord(extra)) {
      return `free-form object at ${path || '/'} cannot be closed with additionalProperties: false`;
    }
    if (!isRoot && !isRecord(node.properties)) {
      return `object without properties at ${path} would only accept {} once closed`;
    }
  }
  const children: Array<[string, unknown]> = [];
  if (isRecord(node.properties)) {
    for (const [name, schema] of Object.entries(node.properties)) {
      const at = pointer(path, 'properties', name);
      if (isRecord(schema) && Object.keys(schema).every((k) => k === 'description' || k === 'title')) {
        return `untyped schema at ${at} accepts any value`;
      }
      children.push([at, schema]);
    }
  }
  if (isRecord(node.items)) children.push([pointer(path, 'items'), node.items]);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    for (const [i, branch] of branches.entries()) children.push([pointer(path, keyword, i), branch]);
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const defined = node[defs];
    if (isRecord(defined)) {
      for (const [name, schema] of Object.entries(defined))
        children.push([pointer(path, defs, name), schema]);
    }
  }
  for (const [at, child] of children) {
    const found = findOpenNode(child, at, false);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Why a schema cannot be sent in strict mode without changing what it accepts, or null. Strict
 * decoding closes every object, so free-form objects and untyped values would silently become
 * unusable; Anthropic's grammar also cannot express recursion.
 */
export function strictBlocker(
  schema: JsonSchema,
  target: 'openai-strict' | 'anthropic-strict',
): string | null {
  const open = findOpenNode(schema, '', true);
  if (open !== null) return open;
  if (target === 'anthropic-strict') {
    const ref = findRecursion(schema, schema, ['#']);
    if (ref !== null) return `recursive reference ${ref} cannot be expressed in Anthropic strict mode`;
  }
  return null;
}
