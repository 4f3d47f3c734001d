import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { inDatabase } from '../../../calls/tool-kit.js';
import type { RunResources } from '../service.js';
import { readTool } from './read.js';

/** The tools over the resources a run's cut results point to. */
export function resourceTools(resources: RunResources): BuiltInTool[] {
  return inDatabase([readTool(resources)]);
}
