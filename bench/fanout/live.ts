import type { Database } from '../../src/db/client.js';
import { appendEvents } from '../../src/journal/append.js';
import { sleep } from '../lifecycle/measure.js';

export const now = () => performance.timeOrigin + performance.now();

/** One journal event in its own transaction, as a state change appends it; nothing acts on this type. */
export const appendOne = (database: Database, payload: Record<string, unknown>) =>
  database.db.transaction((tx) =>
    appendEvents(tx, [
      { type: 'checkpoint_created', actor: 'bench', payload: { ...payload, sentAt: now() } },
    ]),
  );

/** Appends `events` events at `perSecond`, each stamped with the writer's clock for the lag. */
export async function writeAtRate(database: Database, phase: string, events: number, perSecond: number) {
  const t0 = performance.now();
  for (let i = 0; i < events; i += 1) {
    const due = t0 + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    await appendOne(database, { phase, i });
  }
}

/** Appends `events` events from `writers` concurrent writers as fast as they go; returns the writers' rate. */
export async function writeFlatOut(database: Database, phase: string, events: number, writers: number) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < events) {
        const i = next++;
        await appendOne(database, { phase, i });
      }
    }),
  );
  return { perSecond: events / ((performance.now() - t0) / 1000), startedAt: performance.timeOrigin + t0 };
}

/** The replay's history: `events` events appended in transactions of 1,000, as fast as possible. */
export async function writeHistory(database: Database, events: number) {
  for (let done = 0; done < events; done += 1000) {
    const n = Math.min(1000, events - done);
    await database.db.transaction((tx) =>
      appendEvents(
        tx,
        Array.from({ length: n }, (_, i) => ({
          type: 'checkpoint_created' as const,
          actor: 'bench',
          payload: { history: done + i },
        })),
      ),
    );
  }
}
