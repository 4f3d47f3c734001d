import { z } from 'zod';

/**
 * Conditions a policy rule may put on a call's validated arguments (issue 14, item 7). A rule with
 * conditions applies to a call only when all of them hold. Pure: a condition never throws; a
 * missing field, a value of another type or a path that fails the workspace path rules makes it
 * false.
 */

export const conditionOperators = ['glob', 'prefix', 'equals', 'in', 'maxLength'] as const;
export type ConditionOperator = (typeof conditionOperators)[number];
export type ConditionScalar = string | number | boolean;

interface ConditionBase {
  /** An RFC 6901 JSON pointer into the arguments (`/path`, `/files/0/name`). */
  pointer: string;
  /** The value is a workspace path: it is compared in its canonical form, and one that fails the path rules matches nothing. */
  path: boolean;
}

/** The stored form: one operator and its operand. */
export type PolicyCondition = ConditionBase &
  (
    | { operator: 'glob' | 'prefix'; value: string }
    | { operator: 'equals'; value: ConditionScalar }
    | { operator: 'in'; value: ConditionScalar[] }
    | { operator: 'maxLength'; value: number }
  );

/**
 * The workspace path rules, given by the composition root (core cannot import a feature):
 * the canonical form of a path, or not ok when the path is refused.
 */
export type PathCanonicaliser = (raw: string) => { ok: true; path: string } | { ok: false };

export const MAX_CONDITIONS = 16;
const MAX_TEXT = 1024;
const MAX_IN_VALUES = 100;
/** A glob is matched against strings up to this length; a longer value matches no glob. */
const MAX_GLOB_INPUT = 4096;

/** `/` followed by reference tokens, each with `~` only as `~0` or `~1`. */
const POINTER = /^(?:\/(?:[^~/]|~[01])*)+$/;

const text = z.string().min(1).max(MAX_TEXT);
const scalar = z.union([z.string().max(MAX_TEXT), z.number().finite(), z.boolean()]);

/** One condition as a client writes it: the pointer and exactly one operator. */
export const policyConditionInputSchema = z
  .object({
    pointer: z
      .string()
      .max(MAX_TEXT)
      .regex(POINTER, 'must be a JSON pointer (RFC 6901) into the arguments, such as /path'),
    path: z.boolean().nullish(),
    glob: text.nullish(),
    prefix: text.nullish(),
    equals: scalar.nullish(),
    in: z.array(scalar).min(1).max(MAX_IN_VALUES).nullish(),
    maxLength: z.int().min(0).max(1_000_000).nullish(),
  })
  .superRefine((condition, ctx) => {
    const given = conditionOperators.filter((op) => condition[op] != null);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `needs exactly one of ${conditionOperators.join(', ')} (got ${given.length === 0 ? 'none' : given.join(', ')})`,
      });
    }
    if (!condition.path) return;
    const operands = [condition.equals, ...(condition.in ?? [])].filter((v) => v != null);
    if (operands.some((v) => typeof v !== 'string')) {
      ctx.addIssue({
        code: 'custom',
        path: [condition.equals != null ? 'equals' : 'in'],
        message: 'a path condition compares paths: give strings',
      });
    }
  });
export type PolicyConditionInput = z.input<typeof policyConditionInputSchema>;

export const policyConditionsInputSchema = z
  .array(policyConditionInputSchema)
  .max(MAX_CONDITIONS, `at most ${MAX_CONDITIONS} conditions per rule`);

/** The stored form of a condition the input schema accepted. */
export function conditionOf(input: z.output<typeof policyConditionInputSchema>): PolicyCondition {
  const base = { pointer: input.pointer, path: input.path ?? false };
  if (input.glob != null) return { ...base, operator: 'glob', value: input.glob };
  if (input.prefix != null) return { ...base, operator: 'prefix', value: input.prefix };
  if (input.equals != null) return { ...base, operator: 'equals', value: input.equals };
  if (input.in != null) return { ...base, operator: 'in', value: input.in };
  return { ...base, operator: 'maxLength', value: input.maxLength! };
}

const MISSING = Symbol('missing');

/** RFC 6901 lookup through own properties and array indexes only; MISSING when nothing is there. */
function lookup(root: unknown, pointer: string): unknown {
  let current: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(token) || Number(token) >= current.length) return MISSING;
      current = current[Number(token)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return MISSING;
    }
  }
  return current;
}

/** `?` is one character and `*` any run of characters, within one segment. */
function segmentMatches(pattern: readonly string[], value: readonly string[]): boolean {
  let p = 0;
  let v = 0;
  let star = -1;
  let resume = 0;
  while (v < value.length) {
    if (pattern[p] === '*') {
      star = p;
      resume = v;
      p += 1;
    } else if (p < pattern.length && (pattern[p] === '?' || pattern[p] === value[v])) {
      p += 1;
      v += 1;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      v = resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/**
 * Glob matching without regular expressions (so no pattern can make it backtrack): segments are
 * split at `/`; a segment `**` matches any number of segments (none included), `*` any run of
 * characters within a segment, `?` one character; everything else matches itself.
 */
export function globMatches(glob: string, value: string): boolean {
  if (value.length > MAX_GLOB_INPUT) return false;
  const segments = value.split('/').map((s) => Array.from(s));
  // reached[j]: the glob's segments so far match exactly the value's first j segments.
  let reached = new Array<boolean>(segments.length + 1).fill(false);
  reached[0] = true;
  for (const part of glob.split('/')) {
    const next = new Array<boolean>(segments.length + 1).fill(false);
    if (part === '**') {
      let any = false;
      for (let j = 0; j <= segments.length; j += 1) {
        any ||= reached[j]!;
        next[j] = any;
      }
    } else {
      const pattern = Array.from(part);
      for (let j = 0; j < segments.length; j += 1) {
        if (reached[j] && segmentMatches(pattern, segments[j]!)) next[j + 1] = true;
      }
    }
    reached = next;
  }
  return reached[segments.length]!;
}

const codePoints = (value: string, limit: number): number => {
  if (value.length <= limit) return value.length;
  let count = 0;
  for (const _ of value) count += 1;
  return count;
};

/**
 * Whether one condition holds for these arguments. Strict: `equals` and `in` compare without
 * conversion (1 is not "1"), the string operators need a string, and a path condition holds only
 * for a string that passes the workspace path rules (without them, for nothing).
 */
export function conditionHolds(
  condition: PolicyCondition,
  args: unknown,
  canonicalPath?: PathCanonicaliser,
): boolean {
  let value = lookup(args, condition.pointer);
  if (value === MISSING) return false;
  if (condition.path) {
    if (typeof value !== 'string' || !canonicalPath) return false;
    const checked = canonicalPath(value);
    if (!checked.ok) return false;
    value = checked.path;
  }
  switch (condition.operator) {
    case 'glob':
      return typeof value === 'string' && globMatches(condition.value, value);
    case 'prefix':
      return typeof value === 'string' && value.startsWith(condition.value);
    case 'equals':
      return value === condition.value;
    case 'in':
      return condition.value.some((v) => v === value);
    case 'maxLength':
      return typeof value === 'string' && codePoints(value, condition.value) <= condition.value;
  }
}

/** `/path (path) glob "output/drafts/**"`: how reasons name a condition, its operand cut short. */
export function describeCondition(condition: PolicyCondition): string {
  const operand = JSON.stringify(condition.value);
  const shown = operand.length > 120 ? `${operand.slice(0, 120)}…` : operand;
  return `${condition.pointer}${condition.path ? ' (path)' : ''} ${condition.operator} ${shown}`;
}
