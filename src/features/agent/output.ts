import { Repeater } from 'graphql-yoga';
import type { ModelDelta } from '../models/index.js';

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
 * Live model output within this process: the process that drives a run emits, its subscribers
 * receive. Nothing is kept: a watcher that joins late reads the finished turns from the journal.
 */
export class ModelOutputHub {
  private readonly listeners = new Map<string, Set<Listener>>();

  emit(event: ModelOutputEvent): void {
    for (const listener of this.listeners.get(event.runId) ?? []) listener(event);
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
