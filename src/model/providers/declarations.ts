import type { JsonSchema, ToolSpec } from '../../core/tool-spec.js';
import { buildNameMap, type NameRules, type ToolNameMap } from './names.js';
import {
  type NarrowingEntry,
  type NarrowingTarget,
  narrowSchema,
  strictBlocker,
} from './schema-narrowing/index.js';
import type { ToolNarrowingReport } from './types.js';

interface PreparedTool {
  spec: ToolSpec;
  nativeName: string;
  description: string;
  schema: JsonSchema;
  strict: boolean;
}

export interface PrepareOptions {
  rules: NameRules;
  loose: NarrowingTarget;
  /** Set when strict decoding was asked for and the provider has it. */
  strict: 'openai-strict' | 'anthropic-strict' | null;
  /** Per-request strict limits; called once per strict candidate, in declaration order. */
  strictBudget?: (schema: JsonSchema) => string | null;
}

interface PreparedTools {
  tools: PreparedTool[];
  names: ToolNameMap;
  report: ToolNarrowingReport[];
}

function visibleTools(specs: readonly ToolSpec[]): ToolSpec[] {
  return specs.filter((spec) => spec.enabled && spec.visibility === 'MODEL');
}

function strictDisabled(reason: string): NarrowingEntry {
  return { path: '', action: 'rewritten', keyword: 'strict', detail: `strict mode disabled: ${reason}` };
}

/**
 * A schema that strict mode cannot express without changing what it accepts is sent without strict
 * for that tool only, and the report says why.
 */
export function prepareTools(specs: readonly ToolSpec[], options: PrepareOptions): PreparedTools {
  const visible = visibleTools(specs);
  const names = buildNameMap(
    visible.map((spec) => spec.name),
    options.rules,
  );
  const tools: PreparedTool[] = [];
  const report: ToolNarrowingReport[] = [];
  for (const spec of visible) {
    const nativeName = names.byName.get(spec.name)!;
    let strict = false;
    let narrowed = narrowSchema(spec.inputSchema, options.loose);
    if (options.strict !== null) {
      const strictTry = narrowSchema(spec.inputSchema, options.strict);
      const reason =
        strictBlocker(spec.inputSchema, options.strict) ?? options.strictBudget?.(strictTry.schema) ?? null;
      if (reason === null) {
        strict = true;
        narrowed = strictTry;
      } else {
        narrowed = { schema: narrowed.schema, report: [strictDisabled(reason), ...narrowed.report] };
      }
    }
    tools.push({
      spec,
      nativeName,
      description: spec.description || spec.title,
      schema: narrowed.schema,
      strict,
    });
    report.push({ tool: spec.name, nativeName, strict, entries: narrowed.report });
  }
  return { tools, names, report };
}
