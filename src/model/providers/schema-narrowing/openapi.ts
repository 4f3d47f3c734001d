import { isJsonObject, type JsonObject } from '../../../core/json.js';
import type { Context } from './report.js';

export function foldTypeArray(node: JsonObject, path: string, ctx: Context): JsonObject {
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
  return isJsonObject(branch) && branch.type === 'null';
}

/** Returns null when there is no null branch to fold. */
export function foldNullBranches(node: JsonObject, path: string, ctx: Context): JsonObject | null {
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
  if (rest.length === 1 && isJsonObject(only)) return { ...only, ...base, nullable: true };
  return { ...base, anyOf: rest, nullable: true };
}

export function constToEnum(node: JsonObject, path: string, ctx: Context): JsonObject {
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

export function typeOpenApiEnum(node: JsonObject, path: string, ctx: Context): JsonObject {
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

export function dropEmptyProperties(node: JsonObject, path: string, ctx: Context): JsonObject {
  if (!isJsonObject(node.properties) || Object.keys(node.properties).length > 0) return node;
  const { properties: _properties, ...rest } = node;
  ctx.report.push({
    path,
    action: 'dropped',
    keyword: 'properties',
    detail: 'Gemini rejects an empty properties map',
  });
  return rest;
}
