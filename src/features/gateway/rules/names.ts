import { createHash } from 'node:crypto';

/**
 * Tool names as MCP hosts see them. Claude Desktop, claude.ai, Codex, Copilot CLI and strict
 * OpenAI-compatible endpoints refuse a name outside `^[a-zA-Z0-9_-]{1,64}$`, while registry names
 * are 1-128 characters that may hold dots. The mapping is a pure function of the one name (so an
 * advertised name never changes when other tools come or go) and one-to-one:
 *
 * - the plain form replaces each `.` with `__` (`workspace.read_file` → `workspace__read_file`); it
 *   is used when it decodes back unambiguously: the name has no `__`, no `..`, no `_` beside a `.`,
 *   does not start or end with `.` or `_`, and the result fits in 64 characters. In such a form every
 *   run of underscores is one (an original `_`) or two (a `.`) long, so decoding is `__` → `.`;
 * - any other name gets the hashed form: a readable prefix, `___` (three underscores, which no plain
 *   form contains) and the first 12 hex digits of the name's SHA-256. It decodes only through the
 *   list of names it could stand for (`decodeAdvertised`), and two names whose hashed forms collide
 *   are both left out (`advertise` reports them).
 */
export const ADVERTISED_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const HASH_MARK = '___';
const HASH_DIGITS = 12;

function plainForm(name: string): string | null {
  if (name.includes('__') || name.includes('..') || /_\.|\._/.test(name)) return null;
  if (/^[._]|[._]$/.test(name)) return null;
  const plain = name.replaceAll('.', '__');
  return ADVERTISED_NAME_PATTERN.test(plain) ? plain : null;
}

function hashedForm(name: string): string {
  const digest = createHash('sha256').update(name).digest('hex').slice(0, HASH_DIGITS);
  const prefix = name
    .replace(/[^a-zA-Z0-9-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, MAX - HASH_MARK.length - HASH_DIGITS);
  return `${prefix}${HASH_MARK}${digest}`;
}

/** The name a host sees for a registry name (see the module comment). */
export function advertisedName(name: string): string {
  return plainForm(name) ?? hashedForm(name);
}

/**
 * The registry name an advertised name stands for without looking anything up: the plain form's
 * inverse, or null for a hashed form (which needs the candidates: `decodeAdvertised`).
 */
export function registryNameOf(advertised: string): string | null {
  if (!ADVERTISED_NAME_PATTERN.test(advertised) || advertised.includes(HASH_MARK)) return null;
  const name = advertised.replaceAll('__', '.');
  return advertisedName(name) === advertised ? name : null;
}

export interface Advertised {
  /** Advertised name → registry name, for every name that maps to a name no other one maps to. */
  byAdvertised: Map<string, string>;
  /** Registry names left out because their advertised names collide (a hashed-form collision). */
  collisions: string[];
}

/** The advertised names of a set of registry names, collision-checked. */
export function advertise(names: Iterable<string>): Advertised {
  const owners = new Map<string, string[]>();
  for (const name of names) {
    const advertised = advertisedName(name);
    const list = owners.get(advertised);
    if (list) list.push(name);
    else owners.set(advertised, [name]);
  }
  const byAdvertised = new Map<string, string>();
  const collisions: string[] = [];
  for (const [advertised, list] of owners) {
    if (list.length === 1) byAdvertised.set(advertised, list[0]!);
    else collisions.push(...list);
  }
  return { byAdvertised, collisions };
}

/**
 * The registry name a host meant by `called`, among the names it may see: the tool advertised under
 * that name, else a registry name it may see called by its own name (hosts that remember the
 * dotted form). Null when neither: to the host that is an unknown tool.
 */
export function decodeAdvertised(called: string, visible: Advertised, registryNames: ReadonlySet<string>) {
  return visible.byAdvertised.get(called) ?? (registryNames.has(called) ? called : null);
}
