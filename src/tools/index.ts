import type { BuiltInTool } from '../runtime/executor.js';

/** Every BUILT_IN tool family the server ships. Test-only tools are passed in by tests, never here. */
export function builtInTools(): BuiltInTool[] {
  return [];
}
