import picomatch from 'picomatch';

const matchers = new Map<string, (name: string) => boolean>();

/** Whether a policy rule's tool pattern (or a skill's activation pattern) covers a name; each pattern compiles once. */
export function patternMatches(pattern: string, name: string): boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    // Tool names are flat ids, not paths: `*` must cross dots (`mcp.*` covers `mcp.github.search`).
    matcher = picomatch(pattern, { dot: true, nobrace: true, noextglob: true, noglobstar: true });
    matchers.set(pattern, matcher);
  }
  return matcher(name);
}
