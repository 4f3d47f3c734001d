import type { ProviderKind } from '../../src/model/providers/types.js';

/**
 * One assistant turn in provider-neutral terms, and how each wire format says it: the whole body a
 * non-streamed request gets, and the SSE bytes a streamed one gets. The stream of a turn assembles
 * (through the adapter) into exactly its body, as with the real providers.
 */
export interface FakeCall {
  /** Gemini's calls carry no id (the adapter derives one), as most of its models send them. */
  id: string;
  /** The provider's name for the tool (`workspace_read_file`). */
  name: string;
  args: Record<string, unknown>;
}

export interface FakeTurn {
  text?: string;
  calls?: FakeCall[];
  usage?: { input: number; output: number; reasoning?: number };
  /** Distinguishes turns in ids; defaults to the position of the reply in the script. */
  id?: string;
}

export interface SseEvent {
  event?: string;
  data: unknown;
}

const CREATED = 1_767_225_600;
const MODEL = 'fake-model';

/** Text and argument strings are streamed in two pieces, so assembly is exercised. */
function halves(text: string): string[] {
  if (text.length < 2) return [text];
  const at = Math.ceil(text.length / 2);
  return [text.slice(0, at), text.slice(at)];
}

const usageOf = (turn: FakeTurn) => turn.usage ?? { input: 10, output: 5 };

function openAiChat(turn: FakeTurn, id: string) {
  const usage = usageOf(turn);
  const calls = turn.calls ?? [];
  const message: Record<string, unknown> = { role: 'assistant', content: turn.text ?? null };
  if (calls.length > 0)
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const usageBody = {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };
  const body = {
    id,
    object: 'chat.completion',
    created: CREATED,
    model: MODEL,
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: usageBody,
  };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    data: { id, object: 'chat.completion.chunk', created: CREATED, model: MODEL, choices, ...extra },
  });
  const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: d, finish_reason: finishReason }]);
  const events: SseEvent[] = [delta({ role: 'assistant' })];
  for (const piece of turn.text === undefined ? [] : halves(turn.text))
    events.push(delta({ content: piece }));
  calls.forEach((c, index) => {
    events.push(
      delta({
        tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
      }),
    );
    for (const piece of halves(JSON.stringify(c.args)))
      events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(delta({}, finish), chunk([], { usage: usageBody }), { data: '[DONE]' });
  return { body, events };
}

function openAiResponses(turn: FakeTurn, id: string) {
  const usage = usageOf(turn);
  const items: Array<Record<string, unknown>> = [];
  if (turn.text !== undefined)
    items.push({
      id: `msg_${id}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  for (const c of turn.calls ?? [])
    items.push({
      id: `fc_${c.id}`,
      type: 'function_call',
      status: 'completed',
      call_id: c.id,
      name: c.name,
      arguments: JSON.stringify(c.args),
    });
  const body = {
    id: `resp_${id}`,
    object: 'response',
    created_at: CREATED,
    status: 'completed',
    model: MODEL,
    output: items,
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
      total_tokens: usage.input + usage.output,
    },
  };
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>): SseEvent => ({
    event: type,
    data: { type, sequence_number: sequence++, ...fields },
  });
  const events: SseEvent[] = [
    event('response.created', { response: { ...body, status: 'in_progress', output: [], usage: null } }),
  ];
  items.forEach((item, output_index) => {
    if (item.type === 'message') {
      events.push(event('response.output_item.added', { output_index, item: { ...item, content: [] } }));
      for (const delta of halves(turn.text!))
        events.push(
          event('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta }),
        );
    } else {
      events.push(event('response.output_item.added', { output_index, item: { ...item, arguments: '' } }));
      for (const delta of halves(String(item.arguments)))
        events.push(
          event('response.function_call_arguments.delta', { item_id: item.id, output_index, delta }),
        );
    }
    events.push(event('response.output_item.done', { output_index, item }));
  });
  events.push(event('response.completed', { response: body }));
  return { body, events };
}

function anthropic(turn: FakeTurn, id: string) {
  const usage = usageOf(turn);
  const calls = turn.calls ?? [];
  const content: Array<Record<string, unknown>> = [];
  if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
  for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
  const stop = calls.length > 0 ? 'tool_use' : 'end_turn';
  const body = {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
  const event = (type: string, fields: Record<string, unknown> = {}): SseEvent => ({
    event: type,
    data: { type, ...fields },
  });
  const events: SseEvent[] = [
    event('message_start', {
      message: {
        ...body,
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage.input, output_tokens: 1 },
      },
    }),
    event('ping'),
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of halves(String(block.text)))
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    } else {
      events.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      for (const partial_json of halves(JSON.stringify(block.input)))
        events.push(
          event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }),
        );
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
    event('message_stop'),
  );
  return { body, events };
}

function gemini(turn: FakeTurn, id: string) {
  const usage = usageOf(turn);
  const usageMetadata: Record<string, number> = {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - (usage.reasoning ?? 0),
    totalTokenCount: usage.input + usage.output,
  };
  if (usage.reasoning !== undefined) usageMetadata.thoughtsTokenCount = usage.reasoning;
  const callParts = (turn.calls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.args } }));
  const parts = [...(turn.text === undefined ? [] : [{ text: turn.text }]), ...callParts];
  const head = { usageMetadata, modelVersion: MODEL, responseId: id };
  const body = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    ...head,
  };
  const chunk = (chunkParts: unknown[], last: boolean): SseEvent => ({
    data: {
      candidates: [
        {
          content: { role: 'model', parts: chunkParts },
          ...(last ? { finishReason: 'STOP' } : {}),
          index: 0,
        },
      ],
      ...head,
    },
  });
  const pieces: unknown[][] = [
    ...(turn.text === undefined ? [] : halves(turn.text).map((text) => [{ text }])),
    ...(callParts.length > 0 ? [callParts] : []),
  ];
  const events = pieces.map((p, i) => chunk(p, i === pieces.length - 1));
  return { body, events };
}

export function turnIn(
  format: ProviderKind,
  turn: FakeTurn,
  id: string,
): { body: unknown; events: SseEvent[] } {
  switch (format) {
    case 'OPENAI_CHAT':
      return openAiChat(turn, id);
    case 'OPENAI_RESPONSES':
      return openAiResponses(turn, id);
    case 'ANTHROPIC':
      return anthropic(turn, id);
    case 'GEMINI':
      return gemini(turn, id);
  }
}

/** How each format frames an event: Gemini ends lines with CRLF, OpenAI chat names no event type. */
export function sseText(format: ProviderKind, event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  if (format === 'GEMINI') return `data: ${data}\r\n\r\n`;
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}

/** The wire format a request speaks, from its path (as the client builds it), and whether it streams. */
export function formatOfRequest(
  path: string,
  body: string,
): { format: ProviderKind; stream: boolean } | null {
  let streamFlag = false;
  try {
    streamFlag = (JSON.parse(body) as { stream?: unknown }).stream === true;
  } catch {
    streamFlag = false;
  }
  if (path.endsWith('/chat/completions')) return { format: 'OPENAI_CHAT', stream: streamFlag };
  if (path.endsWith('/responses')) return { format: 'OPENAI_RESPONSES', stream: streamFlag };
  if (path.endsWith('/messages')) return { format: 'ANTHROPIC', stream: streamFlag };
  if (/:generateContent$/.test(path)) return { format: 'GEMINI', stream: false };
  if (/:streamGenerateContent\?alt=sse$/.test(path)) return { format: 'GEMINI', stream: true };
  return null;
}
