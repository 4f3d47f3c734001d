import { createHash } from 'node:crypto';

/** What a provider accepts as a function name. */
export interface NameRules {
  readonly maxLength: number;
  readonly pattern: RegExp;
  /** Gemini wants a letter or underscore first. */
  readonly letterFirst: boolean;
}

export const OPENAI_NAME_RULES: NameRules = {
  maxLength: 64,
  pattern: /^[a-zA-Z0-9_-]{1,64}$/,
  letterFirst: false,
};

export const ANTHROPIC_NAME_RULES: NameRules = {
  maxLength: 64,
  pattern: /^[a-zA-Z0-9_-]{1,64}$/,
  letterFirst: false,
};

/**
 * Gemini's documented limits disagree between surfaces (63 vs 64 characters; dots and colons
 * allowed on Vertex only), so the intersection is used.
 */
export const GEMINI_NAME_RULES: NameRules = {
  maxLength: 63,
  pattern: /^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$/,
  letterFirst: true,
};

/**
 * Our tool names ↔ one provider's names, for the tools offered in one run. Decoding a name that is
 * not in the map means the model invented a tool.
 */
export interface ToolNameMap {
  readonly rules: NameRules;
  readonly byName: ReadonlyMap<string, string>;
  readonly byNative: ReadonlyMap<string, string>;
}

function readable(name: string, rules: NameRules): string {
  const base = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  return rules.letterFirst && !/^[a-zA-Z_]/.test(base) ? `_${base}` : base;
}

function hashed(name: string, rules: NameRules): string {
  const suffix = `_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
  return readable(name, rules).slice(0, rules.maxLength - suffix.length) + suffix;
}

/**
 * A name the provider already accepts is used unchanged and wins over any rewritten name. Other
 * names get the readable rewrite (dots become underscores) when it is valid and no other tool in
 * the set ends up with it; otherwise a hash of the full name is appended. Decisions depend only on
 * the set of names, never on their order.
 */
export function buildNameMap(names: readonly string[], rules: NameRules): ToolNameMap {
  const unique = [...new Set(names)];
  const verbatim = new Set(unique.filter((name) => rules.pattern.test(name)));
  const rewritten = unique.filter((name) => !verbatim.has(name));
  const baseCounts = new Map<string, number>();
  for (const name of rewritten) {
    const base = readable(name, rules);
    baseCounts.set(base, (baseCounts.get(base) ?? 0) + 1);
  }

  const byName = new Map<string, string>();
  const byNative = new Map<string, string>();
  const assign = (name: string, native: string) => {
    const holder = byNative.get(native);
    if (holder !== undefined) {
      throw new Error(`Provider name "${native}" would stand for both "${holder}" and "${name}"`);
    }
    byName.set(name, native);
    byNative.set(native, name);
  };

  for (const name of verbatim) assign(name, name);
  for (const name of rewritten) {
    const base = readable(name, rules);
    const free = rules.pattern.test(base) && baseCounts.get(base) === 1 && !verbatim.has(base);
    assign(name, free ? base : hashed(name, rules));
  }
  return { rules, byName, byNative };
}

export function toolNameOf(map: ToolNameMap, nativeName: string): string | null {
  return map.byNative.get(nativeName) ?? null;
}

/**
 * A call replayed from another provider may name a tool that is no longer offered (or was never
 * known); it is encoded on its own so the history still renders.
 */
export function nativeNameOf(map: ToolNameMap, name: string): string {
  return map.byName.get(name) ?? buildNameMap([name], map.rules).byName.get(name)!;
}

/**
 * The registered tool a native name the run's map does not know stands for, if any: the model
 * called a tool it was not offered (hidden by policy, or not runnable now). Matched against the
 * names every registered tool would get if offered: together (as one map over all of them),
 * alone (its readable or hashed rewrite), or verbatim. Null means the name is no tool at all.
 */
export function registeredToolOf(
  nativeName: string,
  registered: readonly string[],
  rules: NameRules,
): string | null {
  const together = toolNameOf(buildNameMap(registered, rules), nativeName);
  if (together !== null) return together;
  if (registered.includes(nativeName)) return nativeName;
  return registered.find((name) => buildNameMap([name], rules).byName.get(name) === nativeName) ?? null;
}
