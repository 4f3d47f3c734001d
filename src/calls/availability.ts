import type { Availability, Unavailability } from '../core/policy.js';
import type { ToolSource, ToolSpec } from '../core/tool-spec.js';
import type { ToolExecutor } from './tool-contract.js';

/** How tools of each source come to exist, for people who meet one that cannot run. */
export const howToolsComeToExist: Record<ToolSource, string> = {
  BUILT_IN: 'BUILT_IN tools are defined by the server itself and registered when it starts',
  SKILL:
    'no executor runs SKILL tools: skills are imported with importSkills (or the CLI) and read through the built-in skill.* tools',
  MCP: 'MCP tools come from an MCP server an admin adds with addMcpServer; they are named mcp.<server>.<tool> after a configured server',
  EXTENSION:
    "EXTENSION tools are registered by the extension itself with registerExtensionTools and the extension's token; they are named ext.<extensionId>.<name>",
};

function noExecutor(spec: ToolSpec): Unavailability {
  const why =
    spec.source === 'BUILT_IN'
      ? `this server does not define the BUILT_IN tool ${spec.name} (left from another version)`
      : howToolsComeToExist[spec.source];
  return { code: 'tool_unavailable', reason: `no executor for it: ${why}` };
}

/**
 * Which tools can run now, asked of the same executors the dispatcher runs calls on (first one
 * that can execute a tool is the one that would run it), so a tool is offered only when its call
 * could actually go somewhere.
 */
export class ToolAvailability {
  constructor(private readonly executors: readonly ToolExecutor[]) {}

  async of(specs: readonly ToolSpec[]): Promise<Availability> {
    const result = new Map<string, Unavailability | null>();
    const byExecutor = new Map<ToolExecutor, ToolSpec[]>();
    for (const spec of specs) {
      const executor = this.executors.find((e) => e.canExecute(spec));
      if (!executor) {
        result.set(spec.name, noExecutor(spec));
        continue;
      }
      result.set(spec.name, null);
      byExecutor.set(executor, [...(byExecutor.get(executor) ?? []), spec]);
    }
    await Promise.all(
      [...byExecutor].map(async ([executor, handled]) => {
        if (!executor.unavailable) return;
        for (const [name, why] of await executor.unavailable(handled)) result.set(name, why);
      }),
    );
    return result;
  }
}
