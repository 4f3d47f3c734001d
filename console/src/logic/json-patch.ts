/**
 * RFC 6902 JSON Patch between two JSON values, the shape the server records for an edit
 * (ArgumentsEdit.diff), so the person sees before approving what the server will store after.
 * Objects are compared key by key, arrays index by index (a shorter array loses its tail from the
 * end, so the indices stay valid when the patch is applied in order), anything else is replaced.
 */
export type PatchOp =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown };

/** A JSON Pointer token: `~` and `/` escaped (RFC 6901). */
const token = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

export function jsonPatch(from: unknown, to: unknown, path = ''): PatchOp[] {
  if (jsonEqual(from, to)) return [];
  if (isObject(from) && isObject(to)) {
    const ops: PatchOp[] = [];
    for (const key of Object.keys(from)) {
      if (!(key in to)) ops.push({ op: 'remove', path: `${path}/${token(key)}` });
    }
    for (const [key, value] of Object.entries(to)) {
      const at = `${path}/${token(key)}`;
      if (key in from) ops.push(...jsonPatch(from[key], value, at));
      else ops.push({ op: 'add', path: at, value });
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const ops: PatchOp[] = [];
    const shared = Math.min(from.length, to.length);
    for (let i = 0; i < shared; i++) ops.push(...jsonPatch(from[i], to[i], `${path}/${i}`));
    for (let i = from.length - 1; i >= to.length; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = from.length; i < to.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: to[i] });
    return ops;
  }
  return [{ op: 'replace', path, value: to }];
}

/** Reads the value a pointer names in `doc`, or undefined when it names nothing. */
function at(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let current: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) current = current[Number(key)];
    else if (isObject(current)) current = current[key];
    else return undefined;
  }
  return current;
}

export interface PatchLine {
  kind: 'add' | 'del';
  text: string;
}

/**
 * The patch as lines a diff view colours: `- /path: old` for what goes, `+ /path: new` for what
 * comes (a replace gives both). `original` is the document the patch applies to.
 */
export function patchLines(original: unknown, ops: readonly PatchOp[]): PatchLine[] {
  const show = (v: unknown) => JSON.stringify(v);
  const lines: PatchLine[] = [];
  for (const op of ops) {
    const where = op.path || '/';
    if (op.op !== 'add') lines.push({ kind: 'del', text: `- ${where}: ${show(at(original, op.path))}` });
    if (op.op !== 'remove') lines.push({ kind: 'add', text: `+ ${where}: ${show(op.value)}` });
  }
  return lines;
}

/** A patch the server sent (JSON), kept only when it has the RFC 6902 shape this page renders. */
export function asPatch(value: unknown): PatchOp[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (op): op is PatchOp =>
      isObject(op) &&
      typeof op.path === 'string' &&
      (op.op === 'add' || op.op === 'remove' || op.op === 'replace'),
  );
}
