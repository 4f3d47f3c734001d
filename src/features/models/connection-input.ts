import { z } from 'zod';
import { LONE_SURROGATE } from '../../core/unicode.js';
import { type ProviderKind, providerKinds } from '../../model/providers/types.js';

/**
 * A model connection as an admin enters it. The wire format is the provider enum the adapters
 * already use (`Provider` in GraphQL), so a connection names exactly one adapter.
 */
export const wireFormats = providerKinds;
export type WireFormat = ProviderKind;

const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
// RFC 9110 token characters: anything else would be refused by fetch, or split a header.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Set by the client from the body and the format; an admin overriding them would break the request. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
]);

/** Sampling settings in provider-neutral names; http/wire.ts maps them onto each format's fields. */
export const samplingFields = [
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
] as const;
export type SamplingField = (typeof samplingFields)[number];

/** What each wire format has a field for; anything else is refused rather than silently dropped. */
export const samplingSupport: Readonly<Record<WireFormat, readonly SamplingField[]>> = {
  // topK is not OpenAI's, but llama.cpp, vLLM and Ollama read it; OpenAI itself refuses it.
  OPENAI_CHAT: [
    'temperature',
    'topP',
    'topK',
    'maxOutputTokens',
    'stopSequences',
    'presencePenalty',
    'frequencyPenalty',
    'seed',
  ],
  OPENAI_RESPONSES: ['temperature', 'topP', 'maxOutputTokens'],
  ANTHROPIC: ['temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences'],
  GEMINI: samplingFields,
};

export const samplingSchema = z
  .object({
    temperature: z.number().min(0).max(2).nullish(),
    topP: z.number().gt(0).max(1).nullish(),
    topK: z.number().int().min(1).max(1000).nullish(),
    maxOutputTokens: z.number().int().min(1).max(1_000_000).nullish(),
    stopSequences: z.array(z.string().min(1).max(256)).max(16).nullish(),
    presencePenalty: z.number().min(-2).max(2).nullish(),
    frequencyPenalty: z.number().min(-2).max(2).nullish(),
    seed: z.number().int().nullish(),
  })
  .strict();

/** Only the settings given are kept, so the stored object says exactly what is sent. */
export type Sampling = { [K in SamplingField]?: NonNullable<z.output<typeof samplingSchema>[K]> };

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_BASE_URLS: Readonly<Record<WireFormat, string>> = {
  OPENAI_CHAT: 'https://api.openai.com/v1',
  OPENAI_RESPONSES: 'https://api.openai.com/v1',
  ANTHROPIC: 'https://api.anthropic.com/v1',
  GEMINI: 'https://generativelanguage.googleapis.com/v1beta',
};

const secretValue = z
  .string()
  .min(1)
  .max(8192)
  .refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks or NUL')
  // A lone surrogate cannot be stored as JSON in Postgres; refused here, the value never reaches
  // a failed query whose message would carry it into a log.
  .refine((v) => !LONE_SURROGATE.test(v), 'must be well-formed Unicode');

const headersSchema = z
  .array(
    z.object({
      name: z
        .string()
        .regex(HEADER_NAME, 'must be a valid header name')
        .refine((n) => !RESERVED_HEADERS.has(n.toLowerCase()), 'is set by the server itself'),
      value: secretValue,
    }),
  )
  .max(32)
  .superRefine((pairs, ctx) => {
    const seen = new Set<string>();
    for (const [i, pair] of pairs.entries()) {
      const key = pair.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${pair.name} is given twice` });
      seen.add(key);
    }
  });

const baseUrlSchema = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL without a query or fragment');

/**
 * The whole connection but its secrets: `set` replaces it as given. The API key and the headers
 * are write-only, so leaving them out keeps the stored ones; `apiKey: null` removes the key and
 * `headers: []` the headers.
 */
export const setModelConnectionInputSchema = z
  .object({
    name: z.string().regex(NAME_PATTERN, 'must be 1-32 characters of a-z 0-9 _ -, starting with a letter'),
    wireFormat: z.enum(wireFormats),
    baseUrl: baseUrlSchema.nullish(),
    model: z
      .string()
      .trim()
      .min(1)
      .max(256)
      .regex(/^[^\s?#]+$/, 'must not contain spaces, ? or #'),
    sampling: samplingSchema.nullish(),
    timeoutMs: z.number().int().min(1_000).max(3_600_000).nullish(),
    apiKey: secretValue.nullish(),
    headers: headersSchema.nullish(),
  })
  .superRefine((input, ctx) => {
    const supported = samplingSupport[input.wireFormat];
    for (const [field, value] of Object.entries(input.sampling ?? {})) {
      if (value !== null && value !== undefined && !supported.includes(field as SamplingField))
        ctx.addIssue({
          code: 'custom',
          path: ['sampling', field],
          message: `${input.wireFormat} has no such setting`,
        });
    }
  });
export type SetModelConnectionInput = z.input<typeof setModelConnectionInputSchema>;

export function samplingOf(raw: z.output<typeof samplingSchema> | null | undefined): Sampling {
  return Object.fromEntries(
    Object.entries(raw ?? {}).filter(([, value]) => value !== null && value !== undefined),
  ) as Sampling;
}

export interface ModelConnection {
  name: string;
  wireFormat: WireFormat;
  baseUrl: string;
  model: string;
  sampling: Sampling;
  timeoutMs: number;
  apiKey: string | null;
  headers: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}
