import { asc } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { JournalEvent } from '../../src/core/journal-event.js';
import { journalEvents } from '../../src/journal/tables.js';
import { runTest as test } from '../support/fixtures.js';
import { agent, approver, waitFor } from '../support/lifecycle.js';

async function take(iterator: AsyncIterator<JournalEvent>, n: number): Promise<JournalEvent[]> {
  const out: JournalEvent[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

/** Every stored position, in order: what a reader that misses nothing and repeats nothing gets. */
async function positions(services: Services): Promise<bigint[]> {
  const rows = await services.database.db
    .select({ seq: journalEvents.seq })
    .from(journalEvents)
    .orderBy(asc(journalEvents.seq));
  return rows.map((r) => r.seq);
}

describe('journal subscriptions', () => {
  test('replays from afterSeq, then streams live, with no gap or duplicate at the seam', async ({
    services,
    run,
  }) => {
    await services.calls.request({ runId: run.id, name: 'test.noop' }, agent);
    const stream = services.journal.stream({ runId: run.id }, 0n);
    const iterator = stream[Symbol.asyncIterator]();
    const replayed = await take(iterator, 4);
    const live = services.calls.request({ runId: run.id, name: 'test.noop' }, agent);
    const streamed = await take(iterator, 3);
    await live;
    await iterator.return?.();
    expect([...replayed, ...streamed].map((e) => e.seq)).toEqual(await positions(services));
    expect([...replayed, ...streamed].map((e) => e.type)).toEqual([
      'run_started',
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });

  test('a subscriber that disconnects and resumes from its last position while writers go on misses nothing and sees nothing twice', async ({
    services,
    run,
  }) => {
    let writing = true;
    const writer = (async () => {
      let n = 0;
      while (writing && n < 60) {
        await services.calls.request({ runId: run.id, name: 'test.noop' }, agent);
        n += 1;
      }
    })();
    const seen: bigint[] = [];
    let last = 0n;
    for (let round = 0; round < 5; round += 1) {
      const iterator = services.journal.stream({}, last)[Symbol.asyncIterator]();
      for (const event of await take(iterator, 10)) {
        seen.push(event.seq);
        last = event.seq;
      }
      await iterator.return?.();
    }
    writing = false;
    await writer;
    const iterator = services.journal.stream({}, last)[Symbol.asyncIterator]();
    const all = await positions(services);
    for (const event of await take(iterator, all.length - seen.length)) seen.push(event.seq);
    await iterator.return?.();
    expect(seen).toEqual(all);
  });

  test('the approval queue shows pending calls, then each call entering and leaving', async ({
    services,
    run,
  }) => {
    const first = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    const listenersBefore = services.bus.subscriberCount;
    const queue = services.approvalQueue.rows(approver)[Symbol.asyncIterator]();
    const initial = await queue.next();
    expect(initial.value).toMatchObject({ id: first.id, status: 'AWAITING_APPROVAL' });
    const second = await services.calls.request(
      { runId: run.id, name: 'test.dangerous', arguments: {}, idempotencyKey: 'two' },
      agent,
    );
    expect((await queue.next()).value).toMatchObject({ id: second.id, status: 'AWAITING_APPROVAL' });
    await services.calls.deny(first.id, { reason: 'no' }, approver);
    expect((await queue.next()).value).toMatchObject({ id: first.id, status: 'DENIED' });
    await services.runs.cancel(run.id, agent);
    expect((await queue.next()).value).toMatchObject({ id: second.id, status: 'CANCELLED' });
    await queue.return?.();
    await waitFor(async () => services.bus.subscriberCount === listenersBefore);
  });
});
