import { validateAgainst } from '../../core/json-schema.js';
import { countTokens, truncateToTokens } from '../../core/tokens.js';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { ContentPart, ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { StoredResource, ToolOutput } from '../tool-contract.js';

/** Parts larger than this are stored as resources; the result keeps a preview and the reference. */
const INLINE_LIMIT_BYTES = 16 * 1024;
const PREVIEW_CHARS = 2000;

type Store = (content: Buffer, mimeType: string) => Promise<StoredResource>;

async function externalize(part: ContentPart, store: Store, refs: string[]): Promise<ContentPart[]> {
  if (part.type === 'text' && Buffer.byteLength(part.text) > INLINE_LIMIT_BYTES) {
    const stored = await store(Buffer.from(part.text), 'text/plain; charset=utf-8');
    refs.push(stored.uri);
    return [
      {
        type: 'text',
        text: `${part.text.slice(0, PREVIEW_CHARS)}\n… [${stored.size} bytes in all; the full text is ${stored.uri}]`,
      },
      { type: 'resource_ref', uri: stored.uri, mimeType: stored.mimeType, description: 'full text' },
    ];
  }
  if (part.type === 'json') {
    const text = JSON.stringify(part.value);
    if (Buffer.byteLength(text) > INLINE_LIMIT_BYTES) {
      const stored = await store(Buffer.from(text), 'application/json');
      refs.push(stored.uri);
      return [
        {
          type: 'text',
          text: `${text.slice(0, PREVIEW_CHARS)}\n… [${stored.size} bytes of JSON; the whole value is ${stored.uri}]`,
        },
        { type: 'resource_ref', uri: stored.uri, mimeType: stored.mimeType, description: 'full JSON value' },
      ];
    }
  }
  if ('uri' in part && part.uri) refs.push(part.uri);
  return [part];
}

/** Cuts text parts to the output budget, keeping the whole output as a resource the model can be pointed at. */
async function applyTokenBudget(content: ContentPart[], maxTokens: number, store: Store, refs: string[]) {
  const texts = content.filter((p): p is Extract<ContentPart, { type: 'text' }> => p.type === 'text');
  const total = texts.reduce((n, p) => n + countTokens(p.text), 0);
  if (total <= maxTokens) return { content, tokens: total };
  const whole = texts.map((p) => p.text).join('\n');
  const stored = await store(Buffer.from(whole), 'text/plain; charset=utf-8');
  refs.push(stored.uri);
  const preview = truncateToTokens(whole, maxTokens);
  return {
    content: [
      {
        type: 'text' as const,
        text: `${preview}\n… [output cut to ${maxTokens} of ${total} tokens; the full output is ${stored.uri}]`,
      },
      {
        type: 'resource_ref' as const,
        uri: stored.uri,
        mimeType: stored.mimeType,
        description: 'full output',
      },
      ...content.filter((p) => p.type !== 'text'),
    ],
    tokens: maxTokens,
  };
}

/** The call a result is shaped for, its output budget, and where oversized parts go. */
export interface ResultShaping {
  callId: string;
  maxOutputTokens: number | null;
  durationMs: number;
  store: Store;
}

/**
 * Turns what a tool returned into the stored ToolResult: structured output checked against the
 * output schema, oversized parts moved to resources, text held to the output token budget.
 */
export async function shapeResult(
  spec: ToolSpec,
  output: ToolOutput,
  { callId, maxOutputTokens, durationMs, store }: ResultShaping,
): Promise<ToolResult> {
  if (spec.outputSchema && output.structured !== undefined && !output.isError) {
    const issues = validateAgainst(spec.outputSchema, output.structured);
    if (issues.length > 0) {
      throw new RecoverableToolError(
        'invalid_output',
        `The tool ${spec.name} returned output that does not match its output schema: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      );
    }
  }
  const refs: string[] = [];
  const parts = (await Promise.all(output.content.map((p) => externalize(p, store, refs)))).flat();
  const budgeted = maxOutputTokens
    ? await applyTokenBudget(parts, maxOutputTokens, store, refs)
    : { content: parts, tokens: null };
  const outputTokens =
    budgeted.tokens ??
    budgeted.content.reduce((n, p) => n + (p.type === 'text' ? countTokens(p.text) : 0), 0);
  return {
    callId,
    content: budgeted.content,
    structured: output.structured ?? null,
    isError: output.isError ?? false,
    resourceRefs: [...new Set(refs)],
    usage: { outputTokens, durationMs, ...(output.usage ?? {}) },
  };
}
