import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { badInput } from '../../core/errors.js';
import type { SkillFolder } from './inputs.js';
import { SKILL_FILE, type SkillFile, type SkippedSkillFile } from './rules/skill.js';

/** Code-unit order, the same on every machine whatever its locale. */
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Reads one skill folder, or every folder below `dir` that has a SKILL.md, as text. Symbolic
 * links are not followed (a skill must not pull in files from elsewhere) and files that are not
 * UTF-8 text are left out, each listed with its folder's `skipped` files: skills here are read by a
 * model, not executed, and the model is told those files are unavailable.
 */
export function readSkillFolders(dir: string): { folders: SkillFolder[] } {
  const collect = (root: string): { files: SkillFile[]; skipped: SkippedSkillFile[] } => {
    const files: SkillFile[] = [];
    const skipped: SkippedSkillFile[] = [];
    const walk = (current: string) => {
      for (const entry of readdirSync(current, { withFileTypes: true }).sort(byName)) {
        const full = join(current, entry.name);
        const path = relative(root, full).split(sep).join('/');
        if (entry.isDirectory()) walk(full);
        else if (!entry.isFile()) skipped.push({ path, reason: 'not a regular file' });
        else {
          const bytes = readFileSync(full);
          try {
            files.push({ path, content: new TextDecoder('utf-8', { fatal: true }).decode(bytes) });
          } catch {
            skipped.push({
              path,
              reason:
                bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? 'a PDF, not text' : 'not UTF-8 text',
            });
          }
        }
      }
    };
    walk(root);
    return { files, skipped };
  };
  if (lstatSync(join(dir, SKILL_FILE), { throwIfNoEntry: false })?.isFile()) {
    return { folders: [{ folderName: null, ...collect(dir) }] };
  }
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .sort(byName)
    .map((entry) => ({ folderName: entry.name, ...collect(join(dir, entry.name)) }));
  if (folders.length === 0) throw badInput(`${dir} has no SKILL.md and no skill folders`);
  return { folders };
}
