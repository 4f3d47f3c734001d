import { z } from 'zod';
import { DomainError } from '../core/errors.js';
import { RecoverableToolError, SystemFailure } from '../core/tool-errors.js';
import type { ContentPart } from '../core/tool-result.js';
import type { JsonSchema, ToolAnnotations, ToolBudget, ToolSpec } from '../core/tool-spec.js';
import type { BuiltInTool, Invocation } from './tool-contract.js';

/** Helpers shared by the tool families. */

export const READ_ONLY: ToolAnnotations = {
  readOnly: true,
  destructive: false,
  idempotent: true,
  openWorld: false,
  cost: 'LOW',
};

export const NO_BUDGET: ToolBudget = {
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

/** Tools whose every read and write is a row of this database: they run in their call's transaction. */
export const inDatabase = (tools: BuiltInTool[]): BuiltInTool[] =>
  tools.map((tool) => ({ ...tool, inDatabase: true }));

/** A tool's arguments, written once as zod: the registry stores `inputSchema`, `run` reads `parse`. */
export interface ToolArguments<T> {
  inputSchema: JsonSchema;
  parse(invocation: Pick<Invocation, 'arguments'> & { spec: Pick<ToolSpec, 'name'> }): T;
}

/**
 * The call lifecycle checks every call's arguments against the stored JSON Schema (Ajv) before the
 * tool runs, so `parse` only types them: a value that passed Ajv but fails here means the two
 * schemas disagree, a bug in the tool, not a mistake of the model.
 */
export function defineArguments<Shape extends z.ZodRawShape>(
  shape: Shape,
): ToolArguments<z.output<z.ZodObject<Shape>>> {
  const schema = z.strictObject(shape);
  // Draft-07 is what the registry assumes without `$schema`; stored schemas never declared one.
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    // The shapes the hand-written schemas had, which models and providers' schema narrowing have
    // seen: a bare `enum` (narrowing reports an added `type`) and a `required` list, even empty.
    override({ zodSchema, jsonSchema }) {
      if (zodSchema._zod.def.type === 'enum') delete jsonSchema.type;
      if (zodSchema._zod.def.type === 'object') jsonSchema.required ??= [];
    },
  });
  return {
    inputSchema,
    parse(invocation) {
      const parsed = schema.safeParse(invocation.arguments);
      if (parsed.success) return parsed.data;
      throw new SystemFailure(
        'schema_mismatch',
        `The arguments of ${invocation.spec.name} passed its input schema but not its parser: ${z.prettifyError(parsed.error)}`,
      );
    },
  };
}

/** JSON Schema's integer, of any size: zod's `z.int()` also stops at 2^53, where Ajv does not. */
export const integer = () =>
  z.number().refine(Number.isInteger, 'must be an integer').meta({ type: 'integer' });

/** An array of strings without repeats (JSON Schema `uniqueItems`). */
export const uniqueArray = <Item extends z.ZodType<string>>(item: Item) =>
  z
    .array(item)
    .refine((items) => new Set(items).size === items.length, 'must not repeat an item')
    .meta({ uniqueItems: true });

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
