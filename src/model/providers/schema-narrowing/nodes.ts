import { isJsonObject, type JsonObject } from '../../../core/json.js';

export function pointer(path: string, ...segments: Array<string | number>): string {
  return segments.reduce<string>(
    (acc, seg) => `${acc}/${String(seg).replaceAll('~', '~0').replaceAll('/', '~1')}`,
    path,
  );
}

export function resolveRef(root: JsonObject, ref: string): JsonObject | null {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return null;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const seg = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(seg)];
    else if (isJsonObject(node)) node = node[seg];
    else return null;
  }
  return isJsonObject(node) ? node : null;
}

export function typesOf(node: JsonObject): string[] {
  if (typeof node.type === 'string') return [node.type];
  return Array.isArray(node.type) ? node.type.filter((t): t is string => typeof t === 'string') : [];
}

export function isObjectNode(node: JsonObject): boolean {
  return typesOf(node).includes('object') || isJsonObject(node.properties);
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** allOf members that are local references are merged by content. */
export function derefForMerge(root: JsonObject, member: JsonObject): JsonObject {
  if (typeof member.$ref !== 'string') return member;
  const target = resolveRef(root, member.$ref);
  if (target === null) return member;
  const { $ref: _ref, ...siblings } = member;
  return { ...target, ...siblings };
}
