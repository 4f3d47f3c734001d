import type { JsonObject } from '../../../core/json.js';
import { typesOf } from './nodes.js';
import type { Context } from './report.js';

export function checkFormat(node: JsonObject, path: string, ctx: Context): JsonObject {
  const formats = ctx.rules.formats;
  if (formats === null || typeof node.format !== 'string') return node;
  const format = node.format;
  if (typesOf(node).some((t) => formats[t]?.includes(format))) return node;
  const { format: _format, ...rest } = node;
  ctx.report.push({
    path,
    action: 'dropped',
    keyword: 'format',
    detail: `format "${format}" is not supported`,
  });
  return rest;
}

export function dropUnsupported(node: JsonObject, path: string, ctx: Context): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    const known = ctx.rules.dropped.get(key);
    const foreign = ctx.rules.allowed !== null && !ctx.rules.allowed.has(key);
    const badMinItems = key === 'minItems' && ctx.rules.smallMinItems && value !== 0 && value !== 1;
    if (known !== undefined || foreign || badMinItems) {
      const detail = badMinItems
        ? 'only minItems 0 or 1 is supported in strict mode'
        : (known ?? "not part of Gemini's Schema subset");
      ctx.report.push({ path, action: 'dropped', keyword: key, detail });
    } else {
      out[key] = value;
    }
  }
  return out;
}
