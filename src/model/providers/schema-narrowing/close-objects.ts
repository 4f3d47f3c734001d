import { isJsonObject, type JsonObject } from '../../../core/json.js';
import { isObjectNode, pointer, stringList, typesOf } from './nodes.js';
import type { Context } from './report.js';

function makeNullable(schema: unknown): unknown {
  if (!isJsonObject(schema)) return schema;
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

export function closeObject(node: JsonObject, path: string, ctx: Context): JsonObject {
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
  if (ctx.rules.requireAll && isJsonObject(out.properties)) {
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
