import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Repeater } from 'graphql-yoga';
import type { Logger } from '../../core/logger.js';
import type { Database } from '../../db/client.js';
import type { ModelDelta } from '../models/index.js';

const CHANNEL = 'ats_model_output';
/** NOTIFY payloads must stay under 8000 bytes; text is sent in pieces well below that. */
const MAX_TEXT_PER_EVENT = 1500;
/** Deltas are sent to other processes in batches this often, not one query each. */
const FLUSH_MS = 20;

export const modelOutputKinds = [
  'JOINED',
  'ROUND_STARTED',
  'TEXT',
  'TOOL_CALL_START',
  'RETRY',
  'ROUND_FINISHED',
] as const;
export type ModelOutputKind = (typeof modelOutputKinds)[number];

/** What watchers of a run see while its model answers; the journal keeps only finished turns. */
export interface ModelOutputEvent {
  runId: string;
  round: number;
  kind: ModelOutputKind;
  text: string | null;
  /** TOOL_CALL_START: the call's place in the turn, its provider id (when streamed) and native name. */
  index: number | null;
  providerCallId: string | null;
  name: string | null;
  /** RETRY: the attempt that failed, the wait before the next, and why. */
  attempt: number | null;
  delayMs: number | null;
  status: number | null;
  reason: string | null;
  /** ROUND_FINISHED: the stored turn and how many calls it asked for. */
  turnId: string | null;
  calls: number | null;
}

type Listener = (event: ModelOutputEvent) => void;

const blank = {
  text: null,
  index: null,
  providerCallId: null,
  name: null,
  attempt: null,
  delayMs: null,
  status: null,
  reason: null,
  turnId: null,
  calls: null,
};

/** One delta of the stream as watchers get it; argument fragments stay out (the stored turn has them). */
export function outputOf(runId: string, round: number, delta: ModelDelta): ModelOutputEvent | null {
  switch (delta.kind) {
    case 'text':
      return { ...blank, runId, round, kind: 'TEXT', text: delta.text };
    case 'tool_call_start':
      return {
        ...blank,
        runId,
        round,
        kind: 'TOOL_CALL_START',
        index: delta.index,
        providerCallId: delta.id,
        name: delta.name,
      };
    case 'retry':
      return {
        ...blank,
        runId,
        round,
        kind: 'RETRY',
        attempt: delta.attempt,
        delayMs: delta.delayMs,
        status: delta.status,
        reason: delta.reason,
      };
    case 'tool_call_arguments':
      return null;
  }
}

export const roundStarted = (runId: string, round: number): ModelOutputEvent => ({
  ...blank,
  runId,
  round,
  kind: 'ROUND_STARTED',
});

export const roundFinished = (runId: string, round: number, turnId: string, calls: number) => ({
  ...blank,
  runId,
  round,
  kind: 'ROUND_FINISHED' as const,
  turnId,
  calls,
});

/**
 * Live model output: the process that drives a run emits, every process's subscribers receive
 * (its own at once, the others' through a Postgres NOTIFY channel, batched). Nothing is kept: a
 * watcher that joins late reads the finished turns from the journal.
 */
export class ModelOutputHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly origin = randomUUID();
  private outbox: ModelOutputEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly database: Database | null = null,
    private readonly logger: Logger | null = null,
  ) {}

  async start(): Promise<void> {
    if (!this.database) return;
    this.unlisten = await this.database.listen(CHANNEL, { onNotify: (payload) => this.receive(payload) });
  }

  async stop(): Promise<void> {
    await this.flush();
    await this.unlisten?.();
  }

  emit(event: ModelOutputEvent): void {
    this.deliver(event);
    if (!this.database) return;
    for (let at = 0; ; at += MAX_TEXT_PER_EVENT) {
      const text = event.text === null ? null : event.text.slice(at, at + MAX_TEXT_PER_EVENT);
      this.outbox.push({ ...event, text });
      if (event.text === null || at + MAX_TEXT_PER_EVENT >= event.text.length) break;
    }
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  private deliver(event: ModelOutputEvent): void {
    for (const listener of this.listeners.get(event.runId) ?? []) listener(event);
  }

  private receive(payload: string): void {
    try {
      const batch = JSON.parse(payload) as { origin: string; events: ModelOutputEvent[] };
      if (batch.origin === this.origin) return;
      for (const event of batch.events) this.deliver(event);
    } catch (error) {
      this.logger?.warn({ err: error }, 'a model output notification could not be read');
    }
  }

  /** Sends what waits in batches that fit a NOTIFY payload, in order. */
  private async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const events = this.outbox.splice(0);
    const batches: ModelOutputEvent[][] = [];
    let size = 0;
    for (const event of events) {
      const bytes = Buffer.byteLength(JSON.stringify(event));
      if (batches.length === 0 || size + bytes > 6000) {
        batches.push([]);
        size = 0;
      }
      batches[batches.length - 1]!.push(event);
      size += bytes;
    }
    for (const batch of batches) {
      try {
        const payload = JSON.stringify({ origin: this.origin, events: batch });
        await this.database!.db.execute(sql`select pg_notify(${CHANNEL}, ${payload})`);
      } catch (error) {
        this.logger?.warn({ err: error }, 'model output could not be sent to other processes');
      }
    }
  }

  get subscriberCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  /** Live events of the run, after a JOINED event naming the round the loop is on (0 before its first). */
  stream(runId: string, round: number): Repeater<ModelOutputEvent> {
    return new Repeater<ModelOutputEvent>(async (push, stop) => {
      void push({ ...blank, runId, round, kind: 'JOINED' });
      const listener: Listener = (event) => void push(event);
      let set = this.listeners.get(runId);
      if (!set) {
        set = new Set();
        this.listeners.set(runId, set);
      }
      set.add(listener);
      await stop;
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    });
  }
}
