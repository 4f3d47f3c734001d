import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { inDatabase } from '../../../calls/tool-kit.js';
import { DEFAULT_READ_CHARS_PER_CALL, DEFAULT_READ_CHARS_PER_RUN, type SkillReadBudget } from '../inputs.js';
import type { SkillService } from '../service.js';
import { listTool } from './list.js';
import { readTool } from './read.js';

/** Seed §7.3: the skills the run's profile may see, read within per-call and per-run character budgets. */
export function skillTools(
  skills: SkillService,
  limits: SkillReadBudget = { perCall: DEFAULT_READ_CHARS_PER_CALL, perRun: DEFAULT_READ_CHARS_PER_RUN },
): BuiltInTool[] {
  return inDatabase([listTool(skills), readTool(skills, limits)]);
}
