import { SpanKind } from '@opentelemetry/api';
import type { ToolExecutor } from '../../../calls/tool-contract.js';
import { inSpan, tracingEnabled } from '../spans.js';

/**
 * With tracing on, each executor's runs are spans (`tool.dispatch`, and `mcp tools/call` inside it
 * for an MCP tool); with tracing off the executors are returned as they are, costing nothing.
 */
export function traceExecutors(executors: ToolExecutor[]): ToolExecutor[] {
  if (!tracingEnabled()) return executors;
  return executors.map((executor) => ({
    canExecute: (spec) => executor.canExecute(spec),
    ...(executor.unavailable ? { unavailable: (specs) => executor.unavailable!(specs) } : {}),
    ...(executor.runsInTransaction ? { runsInTransaction: (spec) => executor.runsInTransaction!(spec) } : {}),
    execute: (invocation) =>
      inSpan(
        'tool.dispatch',
        {
          'tool.name': invocation.spec.name,
          'tool.source': invocation.spec.source,
          'tool.call_id': invocation.callId,
        },
        () =>
          invocation.spec.source === 'MCP'
            ? inSpan(
                'mcp tools/call',
                { 'tool.name': invocation.spec.name },
                () => executor.execute(invocation),
                SpanKind.CLIENT,
              )
            : executor.execute(invocation),
      ),
  }));
}
