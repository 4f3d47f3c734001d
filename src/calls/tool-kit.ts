import { DomainError } from '../core/errors.js';
import { RecoverableToolError } from '../core/tool-errors.js';
import type { ContentPart } from '../core/tool-result.js';
import type { ToolAnnotations, ToolBudget, ToolSpec } from '../core/tool-spec.js';
import type { BuiltInTool } from './tool-contract.js';

/** Helpers shared by the chat, skill and world-info tool families. */

export const READ_ONLY: ToolAnnotations = {
  readOnly: true,
  destructive: false,
  idempotent: true,
  openWorld: false,
  cost: 'LOW',
};

const NO_BUDGET: ToolBudget = {
  maxCalls: null,
  maxOutputTokens: null,
  timeoutMs: null,
  approvalTimeoutMs: null,
};

export const readOnlySpec = (
  fields: Pick<ToolSpec, 'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema'>,
): BuiltInTool['spec'] => ({
  visibility: 'MODEL',
  permission: 'ALWAYS_ALLOW',
  budget: NO_BUDGET,
  annotations: READ_ONLY,
  ...fields,
});

export const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/**
 * The runtime moves any single text part over 16 KiB into a resource and shows the model only a
 * preview. Long text is therefore sent as several parts, cut after whole lines: providers join
 * parts with a newline, which puts back exactly the newline each cut removed. Only a single line
 * longer than the limit is cut inside the line.
 */
const PART_BYTES = 15_000;

export function textParts(text: string): ContentPart[] {
  const parts: string[] = [];
  let current: string[] = [];
  let bytes = 0;
  const flush = () => {
    parts.push(current.join('\n'));
    current = [];
    bytes = 0;
  };
  for (const line of text.split('\n')) {
    const size = Buffer.byteLength(line) + 1;
    if (current.length > 0 && bytes + size > PART_BYTES) flush();
    if (size > PART_BYTES) {
      let piece = '';
      for (const char of line) {
        if (Buffer.byteLength(piece) + Buffer.byteLength(char) > PART_BYTES) {
          parts.push(piece);
          piece = '';
        }
        piece += char;
      }
      current = [piece];
      bytes = Buffer.byteLength(piece) + 1;
      continue;
    }
    current.push(line);
    bytes += size;
  }
  flush();
  return parts.map((part) => ({ type: 'text', text: part }));
}

/**
 * Service errors are expected answers here, not crashes: the runtime would treat a DomainError
 * thrown by a tool as a system failure and fail the run, so they become recoverable results.
 */
export async function asRecoverable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (DomainError.is(error)) {
      const code = error.code === 'NOT_FOUND' ? 'not_found' : 'invalid_arguments';
      throw new RecoverableToolError(code, `${error.message}. Fix the arguments and call the tool again.`);
    }
    throw error;
  }
}

export const plural = (count: number, word: string, many = `${word}s`) =>
  `${count} ${count === 1 ? word : many}`;
