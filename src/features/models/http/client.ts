import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { isJsonObject } from '../../../core/json.js';
import type { Logger } from '../../../core/logger.js';
import { adapterFor } from '../../../model/providers/index.js';
import type { ModelConnection } from '../connection-input.js';
import { AttemptFailure, ModelRequestError, reasonFromBody, redact } from './errors.js';
import {
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  retryAfterMs,
  retryableStatus,
  retryDelayMs,
} from './retry.js';
import { type ModelDelta, newStreamState, readStreamEvent, streamError } from './stream-events.js';
import { type ModelUsage, usageOf } from './usage.js';
import { secretsOf, type WireRequest, wireRequest } from './wire.js';

/** An answer larger than this is refused rather than held in memory. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Enough of an error body to find its type and message. */
const MAX_ERROR_BYTES = 16 * 1024;

export interface ModelCallOptions {
  /** Default true: SSE for OpenAI and Anthropic, `streamGenerateContent?alt=sse` for Gemini. */
  stream?: boolean;
  /** Aborting it aborts the HTTP request in flight (or the wait before a retry). */
  signal?: AbortSignal;
  onDelta?: (delta: ModelDelta) => void;
}

export interface ModelCallResult {
  /**
   * The provider's response body; a stream is assembled by its format's adapter into the body a
   * non-streamed request would have returned, so the stored turn is the same either way.
   */
  response: unknown;
  usage: ModelUsage | null;
  attempts: number;
}

interface Attempt {
  connection: ModelConnection;
  request: WireRequest;
  stream: boolean;
  signal: AbortSignal | undefined;
  onDelta: (delta: ModelDelta) => void;
  secrets: string[];
}

/** Why fetch or a body read threw, in a word or two (`ECONNRESET`, `terminated`). */
function networkReason(error: unknown, secrets: readonly string[]): string {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
      ? cause.code
      : null;
  const message =
    cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return redact(code ?? message, secrets);
}

/**
 * The one HTTP path to every provider: the request the adapters assembled goes out byte for byte
 * (wire.ts adds model, sampling and the stream switch), answers stream in as deltas, and failures
 * are retried by one policy whatever the format.
 */
export class ProviderClient {
  constructor(
    private readonly logger: Logger,
    private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {}

  async send(
    connection: ModelConnection,
    body: Record<string, unknown>,
    options: ModelCallOptions = {},
  ): Promise<ModelCallResult> {
    const stream = options.stream ?? true;
    const attempt: Attempt = {
      connection,
      request: wireRequest(connection, body, stream),
      stream,
      signal: options.signal,
      onDelta: options.onDelta ?? (() => {}),
      secrets: secretsOf(connection),
    };
    for (let number = 1; ; number++) {
      let failure: AttemptFailure;
      try {
        if (options.signal?.aborted) throw new AttemptFailure('cancelled', null, 'cancelled', false);
        const response = await this.attempt(attempt);
        return { response, usage: usageOf(connection.wireFormat, response), attempts: number };
      } catch (error) {
        failure =
          error instanceof AttemptFailure
            ? error
            : new AttemptFailure('connection', null, networkReason(error, attempt.secrets), true);
      }
      const hint = failure.retryAfterMs;
      const tooLong = hint !== null && hint > this.policy.maxRetryAfterMs;
      if (!failure.retryable || number >= this.policy.maxAttempts || tooLong) {
        const reason = tooLong
          ? `${failure.reason} (asked to wait ${Math.ceil(hint / 1000)}s)`
          : failure.reason;
        const error = new ModelRequestError({
          kind: failure.kind,
          status: failure.status,
          reason,
          retryable: failure.retryable,
          attempts: number,
          connection: connection.name,
        });
        this.logger.warn(
          {
            connection: connection.name,
            attempts: number,
            kind: failure.kind,
            status: failure.status,
            reason,
          },
          'model request failed',
        );
        throw error;
      }
      const delayMs = retryDelayMs(number, hint, this.policy);
      this.logger.warn(
        {
          connection: connection.name,
          attempt: number,
          kind: failure.kind,
          status: failure.status,
          reason: failure.reason,
          delayMs,
        },
        'model request failed; retrying',
      );
      attempt.onDelta({
        kind: 'retry',
        attempt: number,
        delayMs,
        status: failure.status,
        reason: failure.reason,
      });
      try {
        await sleep(delayMs, undefined, { signal: options.signal });
      } catch {
        throw new ModelRequestError({
          kind: 'cancelled',
          status: null,
          reason: 'cancelled',
          retryable: false,
          attempts: number,
          connection: connection.name,
        });
      }
    }
  }

  /** One HTTP exchange. Silence longer than the connection's timeout (before or within the answer) aborts it. */
  private async attempt(a: Attempt): Promise<unknown> {
    const controller = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, a.connection.timeoutMs);
    };
    const cancel = () => controller.abort();
    a.signal?.addEventListener('abort', cancel, { once: true });
    let finished = false;
    const failed = (error: unknown): AttemptFailure => {
      if (error instanceof AttemptFailure) return error;
      if (a.signal?.aborted) return new AttemptFailure('cancelled', null, 'cancelled', false);
      if (timedOut)
        return new AttemptFailure('timeout', null, `no answer for ${a.connection.timeoutMs}ms`, true);
      return new AttemptFailure('connection', null, networkReason(error, a.secrets), true);
    };
    try {
      arm();
      const response = await fetch(a.request.url, {
        method: 'POST',
        headers: a.request.headers,
        body: a.request.body,
        signal: controller.signal,
      });
      if (!response.ok) {
        const text = await this.readText(response, MAX_ERROR_BYTES, arm, true);
        throw new AttemptFailure(
          'http_status',
          response.status,
          reasonFromBody(text, a.secrets),
          retryableStatus(response.status),
          retryAfterMs(response.headers),
        );
      }
      const result = a.stream ? await this.readStream(a, response, arm) : await this.readJson(response, arm);
      finished = true;
      return result;
    } catch (error) {
      throw failed(error);
    } finally {
      clearTimeout(timer);
      a.signal?.removeEventListener('abort', cancel);
      // Closes the socket of an answer left unread, so the provider stops generating it.
      if (!finished) controller.abort();
    }
  }

  private async readText(response: Response, limit: number, arm: () => void, cut = false): Promise<string> {
    const reader = response.body?.getReader();
    if (!reader) return '';
    const decoder = new TextDecoder();
    let text = '';
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      arm();
      bytes += value.byteLength;
      if (bytes > limit) {
        await reader.cancel();
        if (cut) return text;
        throw new AttemptFailure(
          'malformed_response',
          response.status,
          `the answer is over ${limit} bytes`,
          false,
        );
      }
      text += decoder.decode(value, { stream: true });
    }
  }

  private async readJson(response: Response, arm: () => void): Promise<unknown> {
    const text = await this.readText(response, MAX_RESPONSE_BYTES, arm);
    try {
      return JSON.parse(text);
    } catch {
      throw new AttemptFailure('malformed_response', response.status, 'the answer is not JSON', true);
    }
  }

  private async readStream(a: Attempt, response: Response, arm: () => void): Promise<unknown> {
    const format = a.connection.wireFormat;
    const state = newStreamState();
    const events: unknown[] = [];
    const seen: { failure: AttemptFailure | null } = { failure: null };
    const parser = createParser({
      onEvent: (message) => {
        if (seen.failure !== null) return;
        // OpenAI's end marker; the other formats end with an event of their own.
        if (message.data === '[DONE]') {
          state.complete = true;
          return;
        }
        let event: unknown;
        try {
          event = JSON.parse(message.data);
        } catch {
          seen.failure = new AttemptFailure(
            'malformed_response',
            response.status,
            'a stream event is not JSON',
            true,
          );
          return;
        }
        if (!isJsonObject(event)) return;
        const error = streamError(event);
        if (error !== null) {
          seen.failure = new AttemptFailure(
            'stream_error',
            null,
            reasonFromBody(JSON.stringify({ error }), a.secrets),
            true,
          );
          return;
        }
        events.push(event);
        for (const delta of readStreamEvent(format, event, state)) a.onDelta(delta);
      },
    });
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let bytes = 0;
    for (;;) {
      if (!reader) break;
      const { done, value } = await reader.read();
      if (done) break;
      arm();
      bytes += value.byteLength;
      if (bytes > MAX_RESPONSE_BYTES)
        throw new AttemptFailure(
          'malformed_response',
          response.status,
          `the answer is over ${MAX_RESPONSE_BYTES} bytes`,
          false,
        );
      parser.feed(decoder.decode(value, { stream: true }));
      if (seen.failure !== null) throw seen.failure;
    }
    parser.feed(decoder.decode());
    if (seen.failure !== null) throw seen.failure;
    if (!state.complete)
      throw new AttemptFailure('stream_error', null, 'the stream ended before its last event', true);
    return adapterFor(format).assembleStream(events);
  }
}
