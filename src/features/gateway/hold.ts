import type { ToolCallService } from '../../calls/index.js';
import type { ToolCallRow } from '../../calls/tables.js';
import type { JournalBus } from '../../journal/bus.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'DENIED', 'EXPIRED', 'CANCELLED']);

export interface HoldOptions {
  ms: number;
  signal: AbortSignal;
  /** Called every `tickMs` while nothing happened (progress notifications). */
  onTick?: () => void;
  tickMs: number;
}

/**
 * Waits for a call's outcome on the journal bus (no polling): every event of the call makes one
 * read of its row. A call a person edited is followed to the call that ran instead. Returns the
 * final row (the replacement for an edit), or null when the time ran out or the signal aborted.
 */
export async function holdForOutcome(
  bus: JournalBus,
  calls: ToolCallService,
  callId: string,
  options: HoldOptions,
): Promise<ToolCallRow | null> {
  let current = callId;
  let dirty = true;
  let wake: (() => void) | null = null;
  // Subscribed before the first read, so an event between the read and the wait is not missed.
  const unsubscribe = bus.subscribe((events) => {
    if (events.some((e) => e.callId === current)) {
      dirty = true;
      wake?.();
    }
  });
  const deadline = Date.now() + options.ms;
  try {
    for (;;) {
      if (options.signal.aborted) return null;
      if (dirty) {
        dirty = false;
        const row = await calls.get(current);
        if (!row) return null;
        if (row.status === 'EDITED' && row.edit) {
          current = row.edit.replacedBy;
          dirty = true;
          continue;
        }
        if (FINAL.has(row.status)) return row;
      }
      const left = deadline - Date.now();
      if (left <= 0) return null;
      const ticked = await new Promise<boolean>((resolve) => {
        const finish = (tick: boolean) => {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', woken);
          resolve(tick);
        };
        const woken = () => finish(false);
        const timer = setTimeout(() => finish(true), Math.min(left, options.tickMs));
        wake = woken;
        options.signal.addEventListener('abort', woken, { once: true });
      });
      wake = null;
      if (ticked && Date.now() < deadline) options.onTick?.();
    }
  } finally {
    unsubscribe();
  }
}
