import { z } from 'zod';
import { badInput } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { ProviderKind } from './types.js';

/**
 * What a submitted body must look like before its turn is stored: one schema per provider, holding
 * only the fields its adapter reads (and the types of the key fields beside them). Objects are loose,
 * so every field a provider adds (usage, signatures, item types this server does not know) is kept
 * and replayed. The adapters stay lenient about what a *model* gets wrong (an unknown tool name,
 * arguments that are not JSON): those become per-call errors. A body that is not a response of the
 * provider at all is the client's mistake, and is refused whole.
 */

/** An issue reads "required" when the field is missing, else "must be <what>". */
const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : `must be ${what}`),
});

const text = z.string(expecting('a string'));
const textOrNull = z.string(expecting('a string or null')).nullable();
const flag = z.boolean(expecting('a boolean'));
const anyObject = z.record(z.string(), z.unknown(), expecting('an object'));

function object<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.looseObject(shape, expecting('an object'));
}

function list<T extends z.ZodType>(item: T, options: { nonEmpty?: boolean } = {}) {
  const array = z.array(item, expecting('a list'));
  return options.nonEmpty ? array.min(1, { error: 'must not be empty' }) : array;
}

/**
 * Items and blocks tagged by `type`: the known types are checked against their own shape, any other
 * type is carried along untouched (providers add new ones, and they are replayed as they came).
 */
function tagged(shapes: Record<string, z.ZodType>) {
  return object({ type: text }).superRefine((value, ctx) => {
    const shape = Object.hasOwn(shapes, value.type) ? shapes[value.type] : undefined;
    const result = shape?.safeParse(value);
    for (const issue of result?.error?.issues ?? [])
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });
}

/** Chat completions: the first choice's message, its text and its function calls. */
const openAiChat = object({
  id: text.optional(),
  choices: list(
    object({
      finish_reason: textOrNull.optional(),
      message: object({
        content: textOrNull.optional(),
        refusal: textOrNull.optional(),
        reasoning_content: textOrNull.optional(),
        tool_calls: list(
          object({
            // Some OpenAI-compatible servers leave the id out; the adapter derives one.
            id: text.optional(),
            type: text.optional(),
            function: object({ name: text, arguments: text }),
          }),
        )
          .nullable()
          .optional(),
      }),
    }),
    { nonEmpty: true },
  ),
});

/** Responses: the output items in order; calls need their `call_id`, the answer goes back under it. */
const openAiResponses = object({
  id: text.optional(),
  output: list(
    tagged({
      function_call: object({ call_id: text, name: text, arguments: text, id: text.optional() }),
      message: object({
        content: list(tagged({ output_text: object({ text }), refusal: object({ refusal: text }) })),
      }),
    }),
  ),
});

/**
 * Messages: the content blocks in order. A message may have no blocks at all; a `tool_use` input is
 * an object, or (from a stream whose JSON never completed) the text the adapter turns into a
 * per-call error.
 */
const anthropic = object({
  id: text.optional(),
  type: z.literal('message', expecting('"message"')).optional(),
  stop_reason: textOrNull.optional(),
  content: list(
    tagged({
      tool_use: object({
        id: text,
        name: text,
        input: z.union([anyObject, z.string()], expecting('an object')).optional(),
      }),
      text: object({ text }),
    }),
  ),
});

const geminiPart = object({
  text: text.optional(),
  thought: flag.optional(),
  thoughtSignature: text.optional(),
  functionCall: object({ name: text, id: text.optional(), args: anyObject.optional() }).optional(),
});

/**
 * generateContent: the first candidate's parts. A candidate that finished without content (a safety
 * stop, say) is a response; a response without candidates is a blocked prompt, with no turn in it.
 */
const gemini = object({
  responseId: text.optional(),
  candidates: list(
    object({
      finishReason: text.optional(),
      content: object({ role: text.optional(), parts: list(geminiPart).optional() }).optional(),
    }).superRefine((candidate, ctx) => {
      if (candidate.content === undefined && candidate.finishReason === undefined)
        ctx.addIssue({ code: 'custom', message: 'required', path: ['content'] });
    }),
    { nonEmpty: true },
  ),
});

export const responseShapes: Readonly<Record<ProviderKind, z.ZodType>> = {
  OPENAI_CHAT: openAiChat,
  OPENAI_RESPONSES: openAiResponses,
  ANTHROPIC: anthropic,
  GEMINI: gemini,
};

export interface ResponseProblem {
  /** Where, from the body's root: `response.choices[0].message`. */
  path: string;
  /** What was expected there: `required`, `must be a string`. */
  message: string;
}

/** Enough to fix the body; a body that is wrong everywhere would otherwise fill the error. */
const MAX_PROBLEMS = 5;

function pathOf(segments: readonly PropertyKey[]): string {
  return segments
    .map((segment) =>
      typeof segment === 'number'
        ? `[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(segment))
          ? `.${String(segment)}`
          : `[${JSON.stringify(String(segment))}]`,
    )
    .reduce((path, segment) => path + segment, 'response');
}

/**
 * Clients often submit what the provider sent back on failure: say so, instead of listing every
 * field such a body lacks.
 */
function errorBodyProblem(body: unknown): ResponseProblem | null {
  if (!isJsonObject(body)) return null;
  const error = body.type === 'error' || isJsonObject(body.error) ? body.error : undefined;
  if (error === undefined) return null;
  const detail = isJsonObject(error) && typeof error.message === 'string' ? `: ${error.message}` : '';
  return {
    path: 'response.error',
    message: `is the provider's error response, not a model turn${detail.slice(0, 200)}`,
  };
}

/** Nothing when the body is a response of the provider; else what is wrong, first problems first. */
export function responseProblems(provider: ProviderKind, body: unknown): ResponseProblem[] {
  const result = responseShapes[provider].safeParse(body);
  if (result.success) return [];
  const problems = result.error.issues.map((issue) => ({ path: pathOf(issue.path), message: issue.message }));
  const errorBody = errorBodyProblem(body);
  return (errorBody === null ? problems : [errorBody, ...problems]).slice(0, MAX_PROBLEMS);
}

/** One line for an error message: `response.choices[0].message: required; …`. */
export function describeProblems(problems: readonly ResponseProblem[]): string {
  return problems.map((p) => `${p.path}: ${p.message}`).join('; ');
}

/**
 * Refuses a body that is not a response of `provider`, before anything of it is stored. For a
 * stream, the paths are those of the response its events assemble into.
 */
export function assertProviderResponse(provider: ProviderKind, body: unknown, stream = false): void {
  const problems = responseProblems(provider, body);
  if (problems.length === 0) return;
  const what = stream ? 'response (the response its events assemble into)' : 'response';
  throw badInput(`${what} is not a response of ${provider}: ${describeProblems(problems)}`, {
    field: 'response',
    problems,
  });
}
