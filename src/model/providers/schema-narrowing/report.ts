import type { JsonObject } from '../../../core/json.js';
import type { JsonSchema } from '../../../core/tool-spec.js';
import type { Rules } from './targets.js';

export const narrowingActions = ['dropped', 'rewritten'] as const;
export type NarrowingAction = (typeof narrowingActions)[number];

export interface NarrowingEntry {
  /** JSON Pointer of the affected node in the narrowed schema ('' is the root). */
  path: string;
  action: NarrowingAction;
  keyword: string;
  detail: string;
}

export interface NarrowingResult {
  schema: JsonSchema;
  report: NarrowingEntry[];
}

/**
 * One narrowing pass: its target's rules, the root that local references resolve against, and the
 * report every step appends to.
 */
export interface Context {
  rules: Rules;
  root: JsonObject;
  report: NarrowingEntry[];
}
