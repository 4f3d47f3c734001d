import type { ToolSpec } from '../../core/tool-spec.js';
import type { BuiltInTool, Invocation, ToolExecutor, ToolOutput } from '../tool-contract.js';

/** Executes the BUILT_IN tools this process was started with. */
export class BuiltInExecutor implements ToolExecutor {
  private readonly tools: Map<string, BuiltInTool>;

  constructor(tools: readonly BuiltInTool[]) {
    this.tools = new Map(tools.map((t) => [t.spec.name, t]));
  }

  get definitions(): BuiltInTool[] {
    return [...this.tools.values()];
  }

  canExecute(spec: ToolSpec): boolean {
    return spec.source === 'BUILT_IN' && this.tools.has(spec.name);
  }

  runsInTransaction(spec: ToolSpec): boolean {
    return this.canExecute(spec) && this.tools.get(spec.name)!.inDatabase === true;
  }

  execute(invocation: Invocation): Promise<ToolOutput> {
    return this.tools.get(invocation.spec.name)!.run(invocation);
  }
}
