import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { readActivatedTool } from './read-activated.js';

/** Seed §7.4: the final world-info activation of the run (or its chat), never the scan's inner state. */
export function worldInfoTools(): BuiltInTool[] {
  return [readActivatedTool()];
}
