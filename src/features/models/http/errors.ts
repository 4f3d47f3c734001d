import { isJsonObject } from '../../../core/json.js';

export const modelRequestFailureKinds = [
  /** The provider answered with a status other than 2xx. */
  'http_status',
  /** No answer: refused, reset, or dropped mid-stream. */
  'connection',
  /** The provider stayed silent longer than the connection's timeout. */
  'timeout',
  /** The body or a stream event was not JSON. */
  'malformed_response',
  /** The stream reported an error, or ended before its last event. */
  'stream_error',
  /** The caller's signal aborted the request. */
  'cancelled',
] as const;
export type ModelRequestFailureKind = (typeof modelRequestFailureKinds)[number];

/** How much of a provider's error message a reason keeps. */
const MAX_REASON = 160;
/** Strings that look like credentials (`sk-…`, `AIza…`, a long token), masked even when not ours. */
const KEY_LIKE = /\b(?:sk|pk|rk|AIza|key|tok)[-_A-Za-z0-9*.]{12,}|[A-Za-z0-9_\-*]{32,}/g;

/** A short, single-line reason with every secret of the connection (and anything key-like) masked. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  out = out.replace(KEY_LIKE, '[redacted]').replace(/\s+/g, ' ').trim();
  return out.length > MAX_REASON ? `${out.slice(0, MAX_REASON - 1)}…` : out;
}

/**
 * What an error body says, in a few words: the provider's error type or code and the start of its
 * message. Never the body itself: it may echo the prompt, or part of a key.
 */
export function reasonFromBody(text: string, secrets: readonly string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'the error body is not JSON';
  }
  const root = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = isJsonObject(root) && isJsonObject(root.error) ? root.error : isJsonObject(root) ? root : {};
  const label = [error.type, error.code, error.status].find((v) => typeof v === 'string');
  const message = typeof error.message === 'string' ? error.message : '';
  const reason = [label, message].filter((v) => v !== undefined && v !== '').join(': ');
  return reason === '' ? 'no reason given' : redact(reason, secrets);
}

/** How a model request failed for good: what went wrong, after how many attempts, on which connection. */
export interface ModelRequestFailure {
  kind: ModelRequestFailureKind;
  status: number | null;
  reason: string;
  retryable: boolean;
  attempts: number;
  connection: string;
}

/**
 * A failed model request, after its retries. The message names the connection, the status and a
 * short reason; it never holds a key, a header value or a whole body.
 */
export class ModelRequestError extends Error implements ModelRequestFailure {
  override readonly name = 'ModelRequestError';
  readonly kind: ModelRequestFailureKind;
  readonly status: number | null;
  readonly reason: string;
  readonly retryable: boolean;
  readonly attempts: number;
  readonly connection: string;

  constructor({ kind, status, reason, retryable, attempts, connection }: ModelRequestFailure) {
    super(
      `model request to ${connection} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${
        status === null ? kind : `HTTP ${status}`
      }: ${reason}`,
    );
    this.kind = kind;
    this.status = status;
    this.reason = reason;
    this.retryable = retryable;
    this.attempts = attempts;
    this.connection = connection;
  }

  static is(error: unknown): error is ModelRequestError {
    return error instanceof ModelRequestError;
  }
}

/** One failed attempt, before the retry policy decides what becomes of it. */
export class AttemptFailure extends Error {
  constructor(
    readonly kind: ModelRequestFailureKind,
    readonly status: number | null,
    readonly reason: string,
    readonly retryable: boolean,
    /** The provider's hint, from `Retry-After` or `retry-after-ms`. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(reason);
  }
}
