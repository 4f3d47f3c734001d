import type { ToolSpec } from './tool-spec.js';

/** Seed §10 and ARCHITECTURE.md: gates that apply unless an ALLOW rule explicitly waives them. */
export function defaultApprovalGate(tool: ToolSpec): string | null {
  if (tool.source === 'MCP' || tool.source === 'EXTENSION')
    return `${tool.source} tools need approval by default`;
  if (tool.annotations.destructive) return 'destructive tools need approval by default';
  if (tool.annotations.openWorld && !tool.annotations.readOnly) {
    return 'tools with external side effects need approval by default';
  }
  if (tool.annotations.cost === 'HIGH') return 'high-cost tools need approval by default';
  return null;
}
