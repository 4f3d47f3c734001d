import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import type { JsonSchema } from './tool-spec.js';

// ajv-formats is CommonJS with a default export that NodeNext sees one level down.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/** Larger schemas are refused: Ajv turns a schema into code, and a tool's schema is sent to models. */
export const MAX_TOOL_SCHEMA_BYTES = 64 * 1024;

/**
 * `pattern` and `patternProperties` come from MCP servers and extensions, and the strings they are
 * tested against from models (up to 256 KiB). A backtracking engine can take exponential time on
 * such a pair and block the process, so patterns run on RE2, whose time is linear in the input.
 * RE2 has no lookaround and no backreferences: a schema that uses them does not compile, and says
 * why. Its time also grows with the pattern's size, so patterns are capped in size, and the
 * matching one validation may do in all is capped in work (input length × pattern size).
 */
const MAX_PATTERN_PROGRAM = 2_000;
const MAX_PATTERN_WORK = 16_000_000;
let patternWork = 0;

class PatternWorkExceeded extends Error {}

// JavaScript's \s (with the u flag) is wider than RE2's [\t\n\f\r ]; `.` also stops at \r,
// U+2028 and U+2029. Rewritten so that a schema means what its author tested in JavaScript.
const JS_SPACE = '\\t\\n\\v\\f\\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
const JS_DOT = '[^\\n\\r\u2028\u2029]';

function toRe2Syntax(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else out += c + next;
    } else if (c === '[' && !inClass) {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') out += pattern[++i];
    } else if (c === ']' && inClass) {
      inClass = false;
      out += c;
    } else if (c === '.' && !inClass) out += JS_DOT;
    else out += c;
  }
  return out;
}

function re2(pattern: string): { re: RE2JS; size: number } {
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(toRe2Syntax(pattern)));
  } catch (error) {
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is not supported (patterns run on RE2: no lookaround, no backreferences, repeats up to 1000): ${(error as Error).message}`,
    );
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM)
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is too complex (${size} RE2 instructions; at most ${MAX_PATTERN_PROGRAM})`,
    );
  return { re, size };
}

const linearRegExp = Object.assign(
  (pattern: string) => {
    const { re, size } = re2(pattern);
    return {
      test: (s: string) => {
        patternWork += (s.length + 1) * size;
        if (patternWork > MAX_PATTERN_WORK) throw new PatternWorkExceeded();
        return re.matcher(s).find();
      },
      // Ajv caches compiled patterns under toString(), so it must name the pattern.
      toString: () => `/${pattern}/re2`,
    };
  },
  { code: 'RE2JS' },
);

/**
 * Tool schemas come from everywhere (MCP servers, extensions, admins) and declare different
 * drafts. One Ajv instance per draft, picked by `$schema`; unknown keywords are tolerated
 * (strict: false) because real-world schemas carry annotations Ajv does not know.
 */
function makeAjv<T extends AnyAjv>(AjvClass: new (opts: object) => T): T {
  const ajv = new AjvClass({
    strict: false,
    allErrors: true,
    validateSchema: true,
    code: { regExp: linearRegExp },
  });
  addFormats(ajv as Ajv);
  return ajv;
}

const draft07 = makeAjv(Ajv);
const draft2019 = makeAjv(Ajv2019);
const draft2020 = makeAjv(Ajv2020);

function ajvFor(schema: JsonSchema): AnyAjv {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return draft2020;
  if (declared.includes('2019-09')) return draft2019;
  return draft07;
}

/** Rows read from the database are new objects every time, so the cache is keyed by content. */
const cache = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 2000;

export type SchemaCheck = { ok: true } | { ok: false; message: string };

/** A tool's input schema must compile and describe an object, since tool arguments are always a JSON object. */
export function checkToolSchema(schema: unknown, requireObjectRoot: boolean): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { ok: false, message: 'must be a JSON Schema object' };
  }
  const s = schema as JsonSchema;
  const bytes = Buffer.byteLength(JSON.stringify(s));
  if (bytes > MAX_TOOL_SCHEMA_BYTES) {
    return { ok: false, message: `is ${bytes} bytes of JSON; at most ${MAX_TOOL_SCHEMA_BYTES} are accepted` };
  }
  if (requireObjectRoot && s.type !== 'object') {
    return { ok: false, message: 'root must be an object schema ("type": "object")' };
  }
  try {
    compile(s);
    return { ok: true };
  } catch (error) {
    return { ok: false, message: `does not compile as JSON Schema: ${(error as Error).message}` };
  }
}

function compile(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = cache.get(key);
  if (cached) return cached;
  // Ajv registers a root `$id` globally and refuses a second schema with the same id; tools are
  // independent documents, so the id is dropped (local `#/...` refs do not need it).
  const { $id: _id, ...withoutId } = schema;
  const validate = ajvFor(schema).compile(withoutId);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, validate);
  return validate;
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export function validateAgainst(schema: JsonSchema, value: unknown): ValidationIssue[] {
  let validate: ValidateFunction;
  try {
    validate = compile(schema);
  } catch (error) {
    // A schema stored before a rule it breaks existed: nothing can be checked against it.
    return [{ path: '(schema)', message: `the schema cannot be used: ${(error as Error).message}` }];
  }
  patternWork = 0;
  try {
    if (validate(value)) return [];
  } catch (error) {
    if (!(error instanceof PatternWorkExceeded)) throw error;
    return [
      {
        path: '(root)',
        message: "is too long to check against the schema's patterns; send shorter strings",
      },
    ];
  }
  return (validate.errors ?? []).map(describeIssue);
}

function describeIssue(error: ErrorObject): ValidationIssue {
  const path = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty: string }).additionalProperty)})`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)})`
        : '';
  return { path, message: `${error.message ?? error.keyword}${extra}` };
}
