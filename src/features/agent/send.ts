import { type ModelConnection, ModelRequestError, type ProviderClient } from '../models/index.js';
import { type AgentJobs, failedEvent, type Sent } from './jobs.js';
import { type ModelOutputHub, outputOf, roundStarted } from './output.js';
import type { AgentJobRow } from './service.js';

export interface ModelRequestsDeps {
  client: ProviderClient;
  output: ModelOutputHub;
  jobs: AgentJobs;
  /** Counts each model request by outcome (`ok`, `failed`, `cancelled`). */
  onModelRequest?: (connection: ModelConnection, outcome: 'ok' | 'failed' | 'cancelled') => void;
}

/**
 * The model requests this process has in flight, one per run, streamed to the output hub; kept
 * abortable so a run's end or a shutdown stops its request at once.
 */
export class ModelRequests {
  private readonly inFlight = new Map<string, AbortController>();

  constructor(private readonly deps: ModelRequestsDeps) {}

  abort(runId: string, reason: Error): void {
    this.inFlight.get(runId)?.abort(reason);
  }

  abortAll(reason: Error): void {
    for (const controller of this.inFlight.values()) controller.abort(reason);
  }

  /** The HTTP request; failures after the retries are journaled and end the run. */
  async send(
    job: AgentJobRow,
    connection: ModelConnection,
    round: number,
    body: Record<string, unknown>,
  ): Promise<Sent | 'cancelled' | 'failed'> {
    const controller = new AbortController();
    this.inFlight.set(job.runId, controller);
    const journaled: Array<Promise<unknown>> = [];
    const started = Date.now();
    this.deps.output.emit(roundStarted(job.runId, round));
    try {
      const result = await this.deps.client.send(connection, body, {
        signal: controller.signal,
        onDelta: (delta) => {
          const event = outputOf(job.runId, round, delta);
          if (event) this.deps.output.emit(event);
          if (delta.kind === 'retry')
            journaled.push(
              this.deps.jobs.journal([
                failedEvent(job.runId, {
                  round,
                  connection: connection.name,
                  attempt: delta.attempt,
                  status: delta.status,
                  reason: delta.reason,
                  retryInMs: delta.delayMs,
                }),
              ]),
            );
        },
      });
      await Promise.all(journaled);
      this.deps.onModelRequest?.(connection, 'ok');
      return { ...result, durationMs: Date.now() - started };
    } catch (error) {
      await Promise.allSettled(journaled);
      if (!ModelRequestError.is(error)) throw error;
      if (error.kind === 'cancelled') {
        this.deps.onModelRequest?.(connection, 'cancelled');
        return 'cancelled';
      }
      this.deps.onModelRequest?.(connection, 'failed');
      const detail = { status: error.status, kind: error.kind, message: error.message };
      await this.deps.jobs.stop(job, 'model_request_failed', detail, [
        failedEvent(job.runId, {
          round,
          connection: connection.name,
          attempt: error.attempts,
          status: error.status,
          kind: error.kind,
          reason: error.reason,
          retryInMs: null,
        }),
      ]);
      return 'failed';
    } finally {
      this.inFlight.delete(job.runId);
    }
  }
}
