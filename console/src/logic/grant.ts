/**
 * The conditions a person attaches to a RUN or ALWAYS grant, as the form holds them (text) and as
 * the API takes them (PolicyConditionInput). A call with a path argument gets its folder as a
 * suggestion, so "for this run" can mean "for this run, under output/drafts/" with one click.
 */
export type ConditionOperator = 'glob' | 'prefix' | 'equals';

export interface ConditionDraft {
  pointer: string;
  operator: ConditionOperator;
  value: string;
  /** Compare as a workspace path (canonical form, so `a/../b` is `b`). */
  path: boolean;
}

export interface ConditionInput {
  pointer: string;
  path?: boolean;
  glob?: string;
  prefix?: string;
  equals?: unknown;
}

/** Argument names that hold a workspace path in the built-in tools and most MCP servers. */
const PATH_KEYS = ['path', 'file', 'filePath', 'file_path', 'dir', 'directory', 'target'];

/** `output/drafts/a.md` → `output/drafts/**`; a file at the top stays itself. */
export function folderGlob(path: string): string {
  const trimmed = path.replace(/^\.\//, '').replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash === -1 ? trimmed : `${trimmed.slice(0, slash)}/**`;
}

export function suggestConditions(args: unknown): ConditionDraft[] {
  if (typeof args !== 'object' || args === null) return [];
  const record = args as Record<string, unknown>;
  const key = PATH_KEYS.find((k) => typeof record[k] === 'string' && record[k] !== '');
  if (!key) return [];
  return [{ pointer: `/${key}`, operator: 'glob', value: folderGlob(record[key] as string), path: true }];
}

/** `equals` takes JSON when it parses (`3`, `true`, `"x"`) and the text itself otherwise. */
function equalsValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function toConditionInputs(
  drafts: readonly ConditionDraft[],
): { ok: true; conditions: ConditionInput[] } | { ok: false; error: string } {
  const conditions: ConditionInput[] = [];
  for (const [index, draft] of drafts.entries()) {
    const pointer = draft.pointer.trim();
    if (!pointer.startsWith('/'))
      return { ok: false, error: `condition ${index + 1}: the pointer starts with / (e.g. /path)` };
    if (draft.value.trim() === '') return { ok: false, error: `condition ${index + 1}: a value is needed` };
    const value = draft.operator === 'equals' ? equalsValue(draft.value.trim()) : draft.value.trim();
    conditions.push({ pointer, ...(draft.path ? { path: true } : {}), [draft.operator]: value });
  }
  return { ok: true, conditions };
}

export type GrantScope = 'ONCE' | 'RUN' | 'ALWAYS';

export const scopeLabels: Record<GrantScope, string> = {
  ONCE: 'Once',
  RUN: 'For this run',
  ALWAYS: 'Always',
};

/** How a condition reads on a grant: `/path glob output/drafts/** (path)`. */
export function describeCondition(condition: {
  pointer: string;
  operator: string;
  value: unknown;
  path: boolean;
}): string {
  const value = typeof condition.value === 'string' ? condition.value : JSON.stringify(condition.value);
  return `${condition.pointer} ${condition.operator.toLowerCase()} ${value}${condition.path ? ' (path)' : ''}`;
}
