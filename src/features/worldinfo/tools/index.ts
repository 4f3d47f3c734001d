import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { inDatabase } from '../../../calls/tool-kit.js';
import type { WorldInfoService } from '../service.js';
import { readActivatedTool } from './read-activated.js';

/** Seed §7.4: the final world-info activation of the run (or its chat), never the scan's inner state. */
export function worldInfoTools(worldInfo: WorldInfoService): BuiltInTool[] {
  return inDatabase([readActivatedTool(worldInfo)]);
}
