import type { BuiltInTool } from '../../../calls/tool-contract.js';
import type { RunResources } from '../service.js';
import { readTool } from './read.js';

/** The tools over the resources a run's cut results point to. */
export function resourceTools(resources: RunResources): BuiltInTool[] {
  return [readTool(resources)];
}
