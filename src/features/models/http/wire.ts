import type { ModelConnection, Sampling, WireFormat } from '../connection-input.js';

/** Anthropic refuses a request without `max_tokens`; this is what it gets when the connection sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
export const ANTHROPIC_VERSION = '2023-06-01';

export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  /** The exact bytes sent. */
  body: string;
}

type Fields = Record<string, unknown>;

/** Each format's names for the neutral sampling settings. */
function samplingFields(format: WireFormat, s: Sampling): Fields {
  const pick = (pairs: Array<[string, unknown]>): Fields =>
    Object.fromEntries(pairs.filter(([, value]) => value !== undefined));
  switch (format) {
    case 'OPENAI_CHAT':
      return pick([
        ['temperature', s.temperature],
        ['top_p', s.topP],
        ['top_k', s.topK],
        ['max_completion_tokens', s.maxOutputTokens],
        ['stop', s.stopSequences],
        ['presence_penalty', s.presencePenalty],
        ['frequency_penalty', s.frequencyPenalty],
        ['seed', s.seed],
      ]);
    case 'OPENAI_RESPONSES':
      return pick([
        ['temperature', s.temperature],
        ['top_p', s.topP],
        ['max_output_tokens', s.maxOutputTokens],
      ]);
    case 'ANTHROPIC':
      return pick([
        ['max_tokens', s.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS],
        ['temperature', s.temperature],
        ['top_p', s.topP],
        ['top_k', s.topK],
        ['stop_sequences', s.stopSequences],
      ]);
    case 'GEMINI':
      return pick([
        ['temperature', s.temperature],
        ['topP', s.topP],
        ['topK', s.topK],
        ['maxOutputTokens', s.maxOutputTokens],
        ['stopSequences', s.stopSequences],
        ['presencePenalty', s.presencePenalty],
        ['frequencyPenalty', s.frequencyPenalty],
        ['seed', s.seed],
      ]);
  }
}

/**
 * The request body: what `modelRequest` assembled, untouched and in its own key order, with the
 * connection's model and sampling settings and the stream switch added around it. Gemini names the
 * model in the URL and takes its settings as `generationConfig`.
 */
export function wireBody(connection: ModelConnection, body: Fields, stream: boolean): Fields {
  const sampling = samplingFields(connection.wireFormat, connection.sampling);
  switch (connection.wireFormat) {
    case 'OPENAI_CHAT':
      return {
        model: connection.model,
        ...body,
        ...sampling,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      };
    case 'OPENAI_RESPONSES':
    case 'ANTHROPIC':
      return { model: connection.model, ...body, ...sampling, ...(stream ? { stream: true } : {}) };
    case 'GEMINI':
      return Object.keys(sampling).length === 0 ? body : { ...body, generationConfig: sampling };
  }
}

function urlOf(connection: ModelConnection, stream: boolean): string {
  const base = connection.baseUrl;
  switch (connection.wireFormat) {
    case 'OPENAI_CHAT':
      return `${base}/chat/completions`;
    case 'OPENAI_RESPONSES':
      return `${base}/responses`;
    case 'ANTHROPIC':
      return `${base}/messages`;
    case 'GEMINI': {
      const model = connection.model.replace(/^models\//, '');
      return `${base}/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    }
  }
}

function authHeaders(connection: ModelConnection): Record<string, string> {
  const key = connection.apiKey;
  switch (connection.wireFormat) {
    case 'OPENAI_CHAT':
    case 'OPENAI_RESPONSES':
      return key === null ? {} : { authorization: `Bearer ${key}` };
    case 'ANTHROPIC':
      return { 'anthropic-version': ANTHROPIC_VERSION, ...(key === null ? {} : { 'x-api-key': key }) };
    case 'GEMINI':
      return key === null ? {} : { 'x-goog-api-key': key };
  }
}

/** The one place a connection and a request body become an HTTP request, for every format. */
export function wireRequest(connection: ModelConnection, body: Fields, stream: boolean): WireRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    ...authHeaders(connection),
  };
  // The admin's headers come last so they can replace a default (an `anthropic-version`, a proxy's auth).
  for (const [name, value] of Object.entries(connection.headers)) {
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  return {
    url: urlOf(connection, stream),
    headers,
    body: JSON.stringify(wireBody(connection, body, stream)),
  };
}

/** Every secret value of a connection, so nothing derived from a request can carry one out. */
export function secretsOf(connection: ModelConnection): string[] {
  return [connection.apiKey, ...Object.values(connection.headers)].filter(
    (value): value is string => typeof value === 'string' && value.length > 0,
  );
}
