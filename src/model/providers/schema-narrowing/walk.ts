import { isJsonObject, type JsonObject } from '../../../core/json.js';
import type { JsonSchema } from '../../../core/tool-spec.js';
import { closeObject } from './close-objects.js';
import { checkFormat, dropUnsupported } from './keywords.js';
import { mergeAllOf, normalizeRoot } from './merge.js';
import { pointer, resolveRef } from './nodes.js';
import {
  constToEnum,
  dropEmptyProperties,
  foldNullBranches,
  foldTypeArray,
  typeOpenApiEnum,
} from './openapi.js';
import type { Context, NarrowingResult } from './report.js';
import { type NarrowingTarget, RULES } from './targets.js';

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

function narrowChildren(node: JsonObject, path: string, ctx: Context, stack: readonly string[]): JsonObject {
  const out: JsonObject = { ...node };
  if (isJsonObject(out.properties)) {
    const properties: JsonObject = {};
    for (const [name, schema] of Object.entries(out.properties)) {
      properties[name] = narrowNode(schema, pointer(path, 'properties', name), ctx, stack);
    }
    out.properties = properties;
  }
  if (isJsonObject(out.items)) out.items = narrowNode(out.items, pointer(path, 'items'), ctx, stack);
  if (Array.isArray(out.anyOf)) {
    out.anyOf = out.anyOf.map((branch, i) => narrowNode(branch, pointer(path, 'anyOf', i), ctx, stack));
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const defined = out[defs];
    if (!isJsonObject(defined)) continue;
    const narrowed: JsonObject = {};
    for (const [name, schema] of Object.entries(defined)) {
      narrowed[name] = narrowNode(schema, pointer(path, defs, name), ctx, stack);
    }
    out[defs] = narrowed;
  }
  return out;
}

function narrowNode(value: unknown, path: string, ctx: Context, parentStack: readonly string[]): unknown {
  if (!isJsonObject(value)) return value;
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
  return { schema: isJsonObject(narrowed) ? narrowed : {}, report: ctx.report };
}
