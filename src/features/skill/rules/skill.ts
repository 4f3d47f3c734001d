/**
 * Agent Skills folders (https://agentskills.io/specification): a `SKILL.md` at the folder root with
 * YAML front matter, plus any other files.
 *
 * Rejected (a `SkillError` naming the problem and the file):
 * - bad paths (absolute, `..`, empty, duplicates), no root `SKILL.md`;
 * - front matter missing or unterminated, invalid YAML, front matter that is not a mapping;
 * - `name` / `description` missing, not strings or empty;
 * - `name` not in the spec's format (1-64 of a-z 0-9 and `-`, no leading, trailing or double `-`),
 *   or different from the folder name when the caller gives one. Every real skill in the fixtures
 *   (anthropics/skills) satisfies both rules.
 *
 * Only warned about unless `strict`: `description` over 1,024 characters and `compatibility` over
 * 500. The spec sets these limits, but Anthropic's own `claude-api` skill ships a 1,068-character
 * description, so rejecting it would refuse real skills.
 *
 * Lengths are counted in Unicode code points. Other front matter keys (`license`, `allowed-tools`,
 * `metadata`, anything else) are kept as parsed in `frontMatter`.
 */
import { parseDocument } from 'yaml';
import { DomainError } from '../../../core/errors.js';
import { codePoints } from '../../../core/unicode.js';

export interface SkillFile {
  /** Path inside the skill folder, `/`-separated, e.g. `SKILL.md` or `reference/evaluation.md`. */
  path: string;
  content: string;
}

export type SkillErrorReason =
  | 'INVALID_PATH'
  | 'DUPLICATE_PATH'
  | 'SKILL_MD_MISSING'
  | 'FRONT_MATTER_MISSING'
  | 'FRONT_MATTER_UNTERMINATED'
  | 'INVALID_YAML'
  | 'FRONT_MATTER_NOT_MAPPING'
  | 'NAME_MISSING'
  | 'NAME_NOT_STRING'
  | 'NAME_INVALID'
  | 'NAME_FOLDER_MISMATCH'
  | 'DESCRIPTION_MISSING'
  | 'DESCRIPTION_NOT_STRING'
  | 'DESCRIPTION_EMPTY'
  | 'DESCRIPTION_TOO_LONG'
  | 'COMPATIBILITY_TOO_LONG';

export class SkillError extends DomainError {
  readonly reason: SkillErrorReason;
  readonly file: string;
  readonly line: number | null;

  constructor(reason: SkillErrorReason, file: string, message: string, line: number | null = null) {
    super('BAD_USER_INPUT', `${file}${line === null ? '' : `:${line}`}: ${message}`, { reason, file, line });
    this.name = 'SkillError';
    this.reason = reason;
    this.file = file;
    this.line = line;
  }
}

/** A file of the folder the import could not take (not UTF-8 text, not a regular file). */
export interface SkippedSkillFile {
  path: string;
  reason: string;
}

export interface SkillWarning {
  reason: SkillErrorReason;
  message: string;
}

export interface ParsedSkill {
  name: string;
  description: string;
  license: string | null;
  compatibility: string | null;
  /** `allowed-tools`: the spec's space-separated string, Claude Code's commas, or a YAML list. */
  allowedTools: string[];
  metadata: Record<string, unknown> | null;
  /** Every front matter key as parsed. */
  frontMatter: Record<string, unknown>;
  /** SKILL.md after the front matter. */
  body: string;
  /** 1-based line of SKILL.md where `body` starts. */
  bodyLine: number;
  folderName: string | null;
  /** All files with normalised paths, SKILL.md included, in input order. */
  files: SkillFile[];
  warnings: SkillWarning[];
}

export interface ParseSkillOptions {
  /** The skill's folder name; when given, `name` must equal it. */
  folderName?: string;
  /** Turn spec limits that real skills exceed (description, compatibility length) into errors. */
  strict?: boolean;
}

/** Profile rules over skills: VISIBLE shows a skill, DENY hides it, and deny wins. */
export const skillRuleEffects = ['VISIBLE', 'DENY'] as const;
export type SkillRuleEffect = (typeof skillRuleEffects)[number];

export const SKILL_FILE = 'SKILL.md';
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;
const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function normalizePath(path: string, label: string): string {
  const normalized = path.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
  const segments = normalized.split('/');
  if (
    normalized === '' ||
    normalized.startsWith('/') ||
    /^[A-Za-z]:/.test(normalized) ||
    normalized.includes('\0') ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..')
  ) {
    throw new SkillError(
      'INVALID_PATH',
      `${label}${path}`,
      'file paths must be relative paths inside the skill folder',
    );
  }
  return normalized;
}

/** Problems in the `name` field, or null when it follows the spec. */
export function checkSkillName(name: string): string | null {
  if (name === '') return 'name must not be empty';
  if (codePoints(name) > MAX_NAME_LENGTH) {
    return `name must be at most ${MAX_NAME_LENGTH} characters, got ${codePoints(name)}`;
  }
  if (!NAME_PATTERN.test(name)) {
    return `name "${name}" must use only lowercase letters, digits and single hyphens, not at the start or end`;
  }
  return null;
}

function splitAllowedTools(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  if (typeof value !== 'string') return [];
  // Split on spaces or commas, but not inside parentheses: `Bash(git add:*)` is one tool.
  const tools: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of value) {
    if (char === '(') depth++;
    if (char === ')') depth = Math.max(depth - 1, 0);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current !== '') tools.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current !== '') tools.push(current);
  return tools;
}

interface FrontMatterBlock {
  yaml: string;
  /** 1-based line of SKILL.md where the YAML starts. */
  yamlLine: number;
  body: string;
  bodyLine: number;
}

function splitFrontMatter(content: string, file: string): FrontMatterBlock {
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  const lines = text.split('\n');
  if (lines[0]?.trimEnd() !== '---') {
    throw new SkillError('FRONT_MATTER_MISSING', file, "must start with YAML front matter (a '---' line)", 1);
  }
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (close < 0) {
    throw new SkillError('FRONT_MATTER_UNTERMINATED', file, "front matter is not closed by a '---' line", 1);
  }
  return {
    yaml: lines.slice(1, close).join('\n'),
    yamlLine: 2,
    body: lines.slice(close + 1).join('\n'),
    bodyLine: close + 2,
  };
}

function parseFrontMatter(block: FrontMatterBlock, file: string): Record<string, unknown> {
  const document = parseDocument(block.yaml);
  const [error] = document.errors;
  if (error) {
    const line = error.linePos ? block.yamlLine + error.linePos[0].line - 1 : null;
    const detail = (error.message.split(' at line ')[0] ?? error.message).trim();
    throw new SkillError('INVALID_YAML', file, `invalid YAML in front matter: ${detail}`, line);
  }
  const value: unknown = document.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SkillError(
      'FRONT_MATTER_NOT_MAPPING',
      file,
      'front matter must be a YAML mapping of keys to values',
    );
  }
  return value as Record<string, unknown>;
}

function requireText(
  frontMatter: Record<string, unknown>,
  key: 'name' | 'description',
  file: string,
): string {
  const upper = key.toUpperCase() as 'NAME' | 'DESCRIPTION';
  if (!(key in frontMatter) || frontMatter[key] === null) {
    throw new SkillError(`${upper}_MISSING`, file, `front matter has no "${key}"`);
  }
  const value = frontMatter[key];
  if (typeof value !== 'string') {
    const type = Array.isArray(value)
      ? 'a list'
      : typeof value === 'object'
        ? 'a mapping'
        : `a ${typeof value}`;
    throw new SkillError(`${upper}_NOT_STRING`, file, `"${key}" must be a string, got ${type}`);
  }
  return value;
}

export function parseSkill(files: readonly SkillFile[], options: ParseSkillOptions = {}): ParsedSkill {
  const folderName = options.folderName ?? null;
  const label = folderName === null ? '' : `${folderName}/`;
  // A leading BOM is encoding, not text: dropped so a file's length, its reads and its content agree.
  const normalized = files.map((file) => ({
    path: normalizePath(file.path, label),
    content: file.content.startsWith('\uFEFF') ? file.content.slice(1) : file.content,
  }));
  const seen = new Set<string>();
  for (const file of normalized) {
    if (seen.has(file.path)) {
      throw new SkillError('DUPLICATE_PATH', `${label}${file.path}`, 'the same path is given twice');
    }
    seen.add(file.path);
  }

  const skillFile = `${label}${SKILL_FILE}`;
  const skillMd = normalized.find((file) => file.path === SKILL_FILE);
  if (!skillMd) {
    const nearMiss = normalized.find((file) => file.path.split('/').at(-1)?.toLowerCase() === 'skill.md');
    const hint = nearMiss
      ? ` (found "${nearMiss.path}"; it must be named SKILL.md and sit at the folder root)`
      : '';
    throw new SkillError('SKILL_MD_MISSING', skillFile, `the skill folder has no SKILL.md${hint}`);
  }

  const block = splitFrontMatter(skillMd.content, skillFile);
  const frontMatter = parseFrontMatter(block, skillFile);
  const name = requireText(frontMatter, 'name', skillFile);
  const nameProblem = checkSkillName(name);
  if (nameProblem) throw new SkillError('NAME_INVALID', skillFile, nameProblem);
  if (folderName !== null && name !== folderName) {
    throw new SkillError(
      'NAME_FOLDER_MISMATCH',
      skillFile,
      `name "${name}" must match the folder name "${folderName}"`,
    );
  }
  const description = requireText(frontMatter, 'description', skillFile);
  if (description.trim() === '') throw new SkillError('DESCRIPTION_EMPTY', skillFile, 'description is empty');

  const warnings: SkillWarning[] = [];
  const limit = (reason: SkillErrorReason, field: string, value: string, max: number) => {
    const length = codePoints(value);
    if (length <= max) return;
    const message = `${field} is ${length} characters; the Agent Skills spec allows at most ${max}`;
    if (options.strict) throw new SkillError(reason, skillFile, message);
    warnings.push({ reason, message });
  };
  limit('DESCRIPTION_TOO_LONG', 'description', description, MAX_DESCRIPTION_LENGTH);
  const compatibility = typeof frontMatter.compatibility === 'string' ? frontMatter.compatibility : null;
  if (compatibility !== null) {
    limit('COMPATIBILITY_TOO_LONG', 'compatibility', compatibility, MAX_COMPATIBILITY_LENGTH);
  }

  const metadata = frontMatter.metadata;
  return {
    name,
    description,
    license: typeof frontMatter.license === 'string' ? frontMatter.license : null,
    compatibility,
    allowedTools: splitAllowedTools(frontMatter['allowed-tools']),
    metadata:
      typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
        ? (metadata as Record<string, unknown>)
        : null,
    frontMatter,
    body: block.body,
    bodyLine: block.bodyLine,
    folderName,
    files: normalized,
    warnings,
  };
}
