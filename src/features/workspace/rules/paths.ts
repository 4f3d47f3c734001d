/**
 * Workspace path rules (issue 4). Every path a tool, patch or import receives goes through
 * `checkWorkspacePath` before storage sees it, so storage only ever handles normalised paths:
 * relative, `/`-separated, NFC, with no `.`, `..` or empty segments.
 *
 * A rejection has one of two kinds, and the difference matters to the caller:
 * - `escape`: the path tries to leave the workspace (absolute, drive, UNC, URL, `..` above the
 *   root, backslash traversal, percent-encoded path syntax). Seed §11 makes that a
 *   SYSTEM_FAILURE that fails the run, because no honest edit needs it.
 * - `invalid`: ill-formed but harmless (control and invisible format characters, look-alike
 *   separators, compatibility forms such as fullwidth letters, reserved device names, trailing
 *   dots, over-long names). The model gets a recoverable error.
 *
 * Decisions:
 * - `%` is an ordinary character: storage never decodes, so `100%.txt` and `a%20b` are names
 *   as written. But a percent-escape that decodes (repeatedly, leniently, including overlong
 *   UTF-8 such as `%c0%ae` and IIS-style `%u002e`) to `.`, `/`, `\` or `:` is an escape: it has
 *   no use in a real file name and exists to smuggle traversal past some later decoder.
 * - Empty segments are collapsed (`a//b` and `a/b/` become `a/b`), as POSIX does. A leading
 *   `/` is still absolute, and a leading `//` is UNC. A path that resolves to the root itself
 *   (`.`, `a/..`) is invalid: it names no file.
 * - Input over 4096 UTF-16 units is refused as too long before any other check, so an absurdly
 *   long traversal chain is `invalid`, not `escape`; either way nothing is accessed.
 * - Any backslash is rejected. Combined with a `..` segment it is an escape whatever the depth,
 *   because it only makes sense as Windows traversal; alone it is invalid.
 * - Windows collapses trailing dots and spaces, so a segment of dots and spaces starting with
 *   `..` (`...`, `.. `) counts as `..` when deciding whether a path leaves the workspace.
 * - Windows-illegal characters `< > : " | ? *` are invalid, so a workspace can always be
 *   exported to a directory on any OS; `:` also rules out NTFS alternate data streams.
 */

const MAX_SEGMENT_BYTES = 255;
const MAX_PATH_BYTES = 1024;
// Decoding nested `%25` layers costs one pass per layer, so input this long is refused before
// any other work. No honest path needs it: even `./` padding stays far below.
const MAX_RAW_LENGTH = 4 * MAX_PATH_BYTES;

export type PathEscapeCode =
  | 'path_absolute'
  | 'path_unc'
  | 'path_drive'
  | 'path_url'
  | 'path_traversal'
  | 'path_encoded';

export type PathInvalidCode =
  | 'path_empty'
  | 'path_control'
  | 'path_lookalike'
  | 'path_compatibility'
  | 'path_backslash'
  | 'path_reserved_char'
  | 'path_reserved_name'
  | 'path_trailing_dot_or_space'
  | 'path_segment_too_long'
  | 'path_too_long';

export type PathEscape = { ok: false; kind: 'escape'; code: PathEscapeCode; message: string };
export type PathInvalid = { ok: false; kind: 'invalid'; code: PathInvalidCode; message: string };
export type PathRejection = PathEscape | PathInvalid;
export type PathCheck = { ok: true; path: string } | PathRejection;

const rejectEscape = (code: PathEscapeCode, message: string): PathEscape => ({
  ok: false,
  kind: 'escape',
  code,
  message,
});
const rejectInvalid = (code: PathInvalidCode, message: string): PathInvalid => ({
  ok: false,
  kind: 'invalid',
  code,
  message,
});

const quote = (value: string): string =>
  JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);

const byteLength = (value: string): number => Buffer.byteLength(value, 'utf8');

export function checkWorkspacePath(raw: string): PathCheck {
  if (raw.length === 0) {
    return rejectInvalid('path_empty', 'path is empty; give a relative path like "output/report.md"');
  }
  if (raw.length > MAX_RAW_LENGTH) {
    return rejectInvalid(
      'path_too_long',
      `path is ${raw.length} characters; the limit is ${MAX_PATH_BYTES} bytes`,
    );
  }
  const path = raw.normalize('NFC');
  const decoded = percentDecode(path);
  return (
    findEscape(path, raw) ??
    findEncodedEscape(path, decoded, raw) ??
    findBadCharacter(path, decoded, raw) ??
    resolveSegments(path, raw)
  );
}

/**
 * True when `path` lies strictly inside the folder `root` (`output/` or `output`; `''` is the
 * whole workspace). `output2/x` is not under `output/`, and `output` itself is not under it
 * either: a file cannot share its name with a root folder. `path` is re-checked so that an
 * un-normalised `output/../secret` can never pass as being under `output/`.
 */
export function isPathUnder(path: string, root: string): boolean {
  const checked = checkWorkspacePath(path);
  if (!checked.ok) return false;
  const folder = root.replace(/\/+$/, '');
  return folder === '' || checked.path.startsWith(`${folder}/`);
}

function findEscape(path: string, raw: string): PathEscape | null {
  const shown = quote(raw);
  if (/^[\\/]{2}/.test(path)) {
    return rejectEscape(
      'path_unc',
      `path ${shown} is a UNC or network path; use a path relative to the workspace`,
    );
  }
  if (/^[\\/]/.test(path)) {
    return rejectEscape('path_absolute', `path ${shown} is absolute; use a path relative to the workspace`);
  }
  if (/^[A-Za-z]:/.test(path)) {
    return rejectEscape(
      'path_drive',
      `path ${shown} starts with a drive letter; use a path relative to the workspace`,
    );
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:[\\/]{2}/.test(path)) {
    return rejectEscape('path_url', `path ${shown} is a URL; use a path relative to the workspace`);
  }
  const hasBackslash = path.includes('\\');
  const segments = path.split(hasBackslash ? /[\\/]/ : '/');
  if (hasBackslash && segments.some(isDotDot)) {
    return rejectEscape('path_traversal', `path ${shown} uses '..' with backslashes to leave the workspace`);
  }
  if (leavesRoot(segments)) {
    return rejectEscape('path_traversal', `path ${shown} uses '..' to leave the workspace`);
  }
  return null;
}

function isDotDot(segment: string): boolean {
  return /^\.\.[. ]*$/.test(segment);
}

function leavesRoot(segments: readonly string[]): boolean {
  let depth = 0;
  for (const segment of segments) {
    if (isDotDot(segment)) {
      depth -= 1;
      if (depth < 0) return true;
    } else if (segment !== '' && !/^\.[ ]*$/.test(segment)) {
      depth += 1;
    }
  }
  return false;
}

const SYNTAX_CHARS = /[^./\\:]/g;

function findEncodedEscape(path: string, decoded: string, raw: string): PathEscape | null {
  if (decoded.replace(SYNTAX_CHARS, '') === path.replace(SYNTAX_CHARS, '')) return null;
  return rejectEscape(
    'path_encoded',
    `path ${quote(raw)} contains percent-encoded path syntax (such as %2e, %2f or %5c); write paths literally`,
  );
}

// C0/C1 controls, lone surrogates, line/paragraph separators, and the invisible characters that
// make a name display differently from what it is: every format character (Cf: bidi controls,
// zero-width characters, soft hyphen, BOM), variation selectors, and the invisible separators.
const CONTROL = /[\p{Cc}\p{Cs}\p{Cf}\u200B\u2028\u2029\p{Variation_Selector}\u180E\u115F\u1160\u3164\uFFA0]/u;

// Look-alikes of `.`, `/`, `\` and `:` that NFKC does not fold to ASCII; the ones it does fold
// (fullwidth forms, one-dot leader, small full stop...) are caught by `foldsToSyntax`.
const LOOKALIKES = new Set([
  '\u0337',
  '\u0338',
  '\u1735',
  '\u2044',
  '\u20E5',
  '\u2215',
  '\u2216',
  '\u2236',
  '\u2571',
  '\u2572',
  '\u29F8',
  '\u29F9',
  '\u3002',
  '\uA789',
  '\uFF61',
]);

/** `U+00AD` */
const codePoint = (char: string): string =>
  `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

const foldsToSyntax = (char: string): boolean => /[./\\:]/.test(char.normalize('NFKC'));

function findBadCharacter(path: string, decoded: string, raw: string): PathInvalid | null {
  const shown = quote(raw);
  const control = CONTROL.exec(path) ?? CONTROL.exec(decoded);
  if (control) {
    return rejectInvalid(
      'path_control',
      `path ${shown} contains ${codePoint(control[0])}, a control or invisible formatting character that would show the approver another name than the one written; remove it`,
    );
  }
  // The decoded form is checked too, so no chain of decoding and NFKC folding yields a separator.
  for (const char of decoded) {
    if (char.charCodeAt(0) < 0x80) continue;
    if (LOOKALIKES.has(char) || foldsToSyntax(char)) {
      return rejectInvalid(
        'path_lookalike',
        `path ${shown} contains '${char}' (${codePoint(char)}), which looks like '.', '/', '\\' or ':'; use plain ASCII`,
      );
    }
  }
  // A compatibility form (fullwidth letters, ligatures, superscripts) reads as its plain form but is
  // another name: the approver would see `ｏｕｔｐｕｔ` as `output`.
  for (const char of path) {
    if (char.charCodeAt(0) < 0x80) continue;
    const plain = char.normalize('NFKC');
    if (plain !== char.normalize('NFC')) {
      return rejectInvalid(
        'path_compatibility',
        `path ${shown} contains '${char}' (${codePoint(char)}), a compatibility form of ${JSON.stringify(plain)}; write ${JSON.stringify(path.normalize('NFKC'))} instead`,
      );
    }
  }
  if (path.includes('\\')) {
    return rejectInvalid('path_backslash', `path ${shown} contains a backslash; separate folders with '/'`);
  }
  const reserved = /[<>:"|?*]/.exec(path);
  if (reserved) {
    return rejectInvalid(
      'path_reserved_char',
      `path ${shown} contains '${reserved[0]}'; file names cannot contain < > : " | ? *`,
    );
  }
  return null;
}

const RESERVED_NAME = /^(?:CON|PRN|AUX|NUL|COM[1-9¹²³]|LPT[1-9¹²³]|CONIN\$|CONOUT\$)$/i;

function resolveSegments(path: string, raw: string): PathCheck {
  const resolved: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      resolved.pop();
      continue;
    }
    resolved.push(segment);
  }
  for (const segment of resolved) {
    const shown = quote(segment);
    // Windows ignores everything from the first dot and trailing spaces when matching devices.
    const stem = segment.split('.')[0]!.trimEnd();
    if (RESERVED_NAME.test(stem)) {
      return rejectInvalid(
        'path_reserved_name',
        `name ${shown} is a reserved device name on Windows; rename it`,
      );
    }
    if (/[. ]$/.test(segment)) {
      return rejectInvalid('path_trailing_dot_or_space', `name ${shown} ends with a dot or space; remove it`);
    }
    const bytes = byteLength(segment);
    if (bytes > MAX_SEGMENT_BYTES) {
      return rejectInvalid(
        'path_segment_too_long',
        `name ${shown} is ${bytes} bytes in UTF-8; the limit is ${MAX_SEGMENT_BYTES}`,
      );
    }
  }
  if (resolved.length === 0) {
    return rejectInvalid('path_empty', `path ${quote(raw)} names the workspace root, not a file`);
  }
  const normalised = resolved.join('/');
  const bytes = byteLength(normalised);
  if (bytes > MAX_PATH_BYTES) {
    return rejectInvalid('path_too_long', `path is ${bytes} bytes in UTF-8; the limit is ${MAX_PATH_BYTES}`);
  }
  return { ok: true, path: normalised };
}

/**
 * Decodes the way a careless consumer might: until nothing changes, accepting `%uXXXX` and
 * overlong UTF-8, so that every encoding of `.`, `/`, `\` or `:` shows up in the result. Each
 * pass that changes something shortens the string, so the loop ends.
 */
function percentDecode(value: string): string {
  let current = value;
  for (;;) {
    const next = current
      .replace(/%u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      .replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => decodeUtf8Leniently(run));
    if (next === current) return current;
    current = next;
  }
}

function decodeUtf8Leniently(run: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i += 3) bytes.push(Number.parseInt(run.slice(i + 1, i + 3), 16));
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const extra = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
    let codePoint = extra === 0 ? lead : lead & (0x3f >> extra);
    let consumed = 1;
    while (consumed <= extra && ((bytes[i + consumed] ?? 0) & 0xc0) === 0x80) {
      codePoint = (codePoint << 6) | (bytes[i + consumed]! & 0x3f);
      consumed += 1;
    }
    const complete = consumed === extra + 1 && !(extra === 0 && lead >= 0x80);
    const valid = complete && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
    out += valid ? String.fromCodePoint(codePoint) : '\uFFFD';
    i += consumed;
  }
  return out;
}
