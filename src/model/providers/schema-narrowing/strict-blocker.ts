import { isJsonObject, type JsonObject } from '../../../core/json.js';
import type { JsonSchema } from '../../../core/tool-spec.js';
import { isObjectNode, pointer, resolveRef } from './nodes.js';

function findRecursion(node: unknown, root: JsonObject, stack: readonly string[]): string | null {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = findRecursion(item, root, stack);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isJsonObject(node)) return null;
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
  if (!isJsonObject(node)) return null;
  if (isObjectNode(node)) {
    const extra = node.additionalProperties;
    if (extra === true || isJsonObject(extra)) {
      return `free-form object at ${path || '/'} cannot be closed with additionalProperties: false`;
    }
    if (!isRoot && !isJsonObject(node.properties)) {
      return `object without properties at ${path} would only accept {} once closed`;
    }
  }
  const children: Array<[string, unknown]> = [];
  if (isJsonObject(node.properties)) {
    for (const [name, schema] of Object.entries(node.properties)) {
      const at = pointer(path, 'properties', name);
      if (isJsonObject(schema) && Object.keys(schema).every((k) => k === 'description' || k === 'title')) {
        return `untyped schema at ${at} accepts any value`;
      }
      children.push([at, schema]);
    }
  }
  if (isJsonObject(node.items)) children.push([pointer(path, 'items'), node.items]);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    for (const [i, branch] of branches.entries()) children.push([pointer(path, keyword, i), branch]);
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const defined = node[defs];
    if (isJsonObject(defined)) {
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
