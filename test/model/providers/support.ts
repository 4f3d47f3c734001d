import { readFileSync } from 'node:fs';
import type { ToolResult } from '../../../src/core/tool-result.js';
import {
  type JsonSchema,
  normalizeAnnotations,
  normalizeBudget,
  type ToolSpec,
} from '../../../src/core/tool-spec.js';

const FIXTURES = new URL('../../fixtures/providers/', import.meta.url);

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(fixtureText(name)) as Record<string, unknown>;
}

export function spec(
  name: string,
  inputSchema: JsonSchema = { type: 'object', properties: {} },
  overrides: Partial<ToolSpec> = {},
): ToolSpec {
  return {
    name,
    title: name,
    description: `Test tool ${name}`,
    inputSchema,
    outputSchema: null,
    annotations: normalizeAnnotations(undefined),
    visibility: 'MODEL',
    permission: 'ALWAYS_ALLOW',
    budget: normalizeBudget(undefined),
    source: 'BUILT_IN',
    enabled: true,
    ...overrides,
  };
}

/** The tool names the recorded fixtures call. */
export const FIXTURE_TOOLS = [
  'GetWeatherArgs',
  'get_stock_price',
  'weather',
  'calculator',
  'getInventory',
  'checkSandboxErrors',
  'updateIssueList',
  'read_theme',
  'read_screen',
].map((name) => spec(name));

export function textResult(callId: string, text: string, isError = false): ToolResult {
  return {
    callId,
    content: [{ type: 'text', text }],
    structured: null,
    isError,
    resourceRefs: [],
    usage: null,
  };
}
