import { isJsonObject, type JsonObject } from '../../../core/json.js';
import { derefForMerge, isObjectNode, stringList } from './nodes.js';
import type { Context } from './report.js';

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
      if (key === 'properties' && isJsonObject(value)) {
        const props: JsonObject = { ...(isJsonObject(out.properties) ? out.properties : {}) };
        for (const [name, schema] of Object.entries(value)) {
          const existing = props[name];
          props[name] =
            isJsonObject(existing) && isJsonObject(schema)
              ? mergeInto(existing, [schema])
              : (existing ?? schema);
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

export function mergeAllOf(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...base } = node;
  const members = allOf.filter(isJsonObject).map((m) => derefForMerge(ctx.root, m));
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
    .filter(isJsonObject)
    .map((b) => derefForMerge(ctx.root, b))
    .filter(isObjectNode);
  const { [keyword]: _union, ...base } = node;
  const properties: JsonObject = { ...(isJsonObject(base.properties) ? base.properties : {}) };
  for (const branch of branches) {
    if (!isJsonObject(branch.properties)) continue;
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

export function normalizeRoot(node: JsonObject, ctx: Context): JsonObject {
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
