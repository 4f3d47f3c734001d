import { setTimeout as sleep } from 'node:timers/promises';
import { asc, eq, sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { runs } from '../../src/calls/tables.js';
import type { JournalEvent, NewJournalEvent } from '../../src/core/journal-event.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { rowsOf, type Tx } from '../../src/db/tx.js';
import { appendEvents, journaledTransaction } from '../../src/journal/append.js';
import { readEvents } from '../../src/journal/read.js';
import { journalEvents, journalOrigin } from '../../src/journal/tables.js';
import { testPostgresUrl } from '../support/env.js';
import { dbTest } from '../support/fixtures.js';

const event = (marker: string): NewJournalEvent => ({
  type: 'workspace_changed',
  actor: 'test',
  payload: { marker },
});
const markers = (events: JournalEvent[]) => events.map((e) => e.payload.marker);

/** A transaction on another connection that has its id and stays open until `end` is called. */
interface Holder {
  end(): Promise<void>;
}

/**
 * On Postgres, `hold` opens a transaction on a second client (of this database, or of another
 * database of the cluster) that takes its transaction id at once, may append events, and commits
 * when told: what a slow call's transaction is to everyone else. PGlite is one connection, where
 * no other transaction can be open meanwhile.
 */
const test = dbTest.extend<{
  other: Database;
  hold: (events?: NewJournalEvent[], database?: Database) => Promise<Holder>;
}>({
  other: async ({ testDb, skip }, use) => {
    if (!testDb.url) return skip('PGlite is one connection: no other transaction can be open meanwhile');
    const other = await openDatabase({ driver: 'postgres', url: testDb.url, max: 2 });
    await use(other);
    await other.close();
  },
  hold: async ({ other }, use) => {
    const open: Array<Promise<void>> = [];
    await use(async (events = [], database = other) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started!: () => void;
      const hasId = new Promise<void>((resolve) => {
        started = resolve;
      });
      const done = database.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_current_xact_id()`);
        await appendEvents(tx, events);
        started();
        await released;
      });
      open.push(done);
      await hasId;
      return {
        end: async () => {
          release();
          await done;
        },
      };
    });
    await Promise.allSettled(open);
  },
});

describe('journal positions from transaction ids', () => {
  test("a transaction's events take consecutive positions in the order appended, after every earlier transaction's", async ({
    services,
  }) => {
    const db = services.database.db;
    await journaledTransaction(db, async (tx) => {
      await appendEvents(tx, [event('a1')]);
      await appendEvents(tx, [event('a2'), event('a3')]);
    });
    await db.transaction(async (tx) => {
      await appendEvents(tx, [event('b1')]);
      await appendEvents(tx, [event('b2')]);
    });
    const rows = await db.select().from(journalEvents).orderBy(asc(journalEvents.seq));
    expect(rows.map((r) => r.payload.marker)).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
    const [a1, a2, a3, b1, b2] = rows.map((r) => r.seq);
    expect([a2! - a1!, a3! - a2!, b2! - b1!]).toEqual([1n, 1n, 1n]);
    expect(b1! > a3!).toBe(true);
  });

  // On Postgres the events' statement and the COMMIT go out together (src/db/pipelined-begin.ts).
  test("a journaled transaction's events commit with its other writes, and an events statement that fails takes them all back", async ({
    services,
  }) => {
    const db = services.database.db;
    const newRun = (tx: Tx, createdBy: string) =>
      tx.insert(runs).values({ status: 'RUNNING', deniedToolStrategy: 'FAIL_RUN', createdBy });
    const xid = await journaledTransaction(db, async (tx) => {
      await appendEvents(tx, [event('kept')]);
      await newRun(tx, 'journaled');
      const [row] = rowsOf<{ xid: string }>(await tx.execute(sql`select pg_current_xact_id()::text as xid`));
      return BigInt(row!.xid);
    });
    const [kept] = await db.select().from(journalEvents);
    expect(kept!.payload.marker).toBe('kept');
    // Its position comes from the id of the transaction that wrote the run: the events were in it.
    const [origin] = await db.select().from(journalOrigin);
    expect((kept!.seq - origin!.offset) >> 16n).toBe(xid);
    expect(await db.$count(runs, eq(runs.createdBy, 'journaled'))).toBe(1);

    const failure = await journaledTransaction(db, async (tx) => {
      await newRun(tx, 'undone');
      await appendEvents(tx, [{ ...event('broken'), runId: 'not a uuid' }]);
    }).catch((error: { cause?: { code?: string }; code?: string }) => error.cause?.code ?? error.code);
    expect(failure).toBe('22P02');
    expect(await db.$count(runs, eq(runs.createdBy, 'undone'))).toBe(0);
    expect(await db.$count(journalEvents)).toBe(1);
  });

  test('a transaction appending more than 65,536 events fails with program_limit_exceeded and writes none', async ({
    services,
  }) => {
    const db = services.database.db;
    const many = Array.from({ length: 65_536 }, (_, i) => event(`m${i}`));
    const failure = await db
      .transaction(async (tx) => {
        await appendEvents(tx, many);
        await appendEvents(tx, [event('one too many')]);
      })
      .catch((error: { cause?: { code?: string }; code?: string }) => error.cause?.code ?? error.code);
    expect(failure).toBe('54000');
    expect(await db.$count(journalEvents)).toBe(0);
  });

  test('after a restore into a cluster with lower transaction ids, the next start puts new positions after the stored ones', async ({
    services,
    testDb,
  }) => {
    const db = services.database.db;
    const restored = 1n << 60n;
    await db
      .insert(journalEvents)
      .values({ seq: restored, type: 'workspace_changed', actor: 'test', payload: {} });
    await runMigrations(testDb.database, testDb.url ?? undefined);
    await appendEvents(db, [event('after the restore')]);
    const [last] = await db.select().from(journalEvents).orderBy(sql`seq desc`).limit(1);
    expect(last!.payload.marker).toBe('after the restore');
    expect(last!.seq > restored).toBe(true);
  });

  test('a reader resuming after the last position it saw gets the event of a transaction that began earlier and committed later', async ({
    services,
    hold,
  }) => {
    const db = services.database.db;
    const older = await hold([event('older')]);
    await appendEvents(db, [event('newer')]);
    const whileOpen = await readEvents(db, { afterSeq: 0n, limit: 10 });
    expect({ markers: markers(whileOpen.events), unsettled: whileOpen.unsettled }).toEqual({
      markers: [],
      unsettled: true,
    });
    await older.end();
    const after = await readEvents(db, { afterSeq: 0n, limit: 10 });
    expect({ markers: markers(after.events), unsettled: after.unsettled }).toEqual({
      markers: ['older', 'newer'],
      unsettled: false,
    });
  });

  test('positions a reader knows to be final are read even while an older transaction holds the horizon below them', async ({
    services,
    hold,
  }) => {
    const db = services.database.db;
    await appendEvents(db, [event('final')]);
    const [{ seq }] = (await readEvents(db, { afterSeq: 0n, limit: 1 })).events as [JournalEvent];
    const older = await hold();
    await appendEvents(db, [event('above')]);
    const page = await readEvents(db, { afterSeq: 0n, limit: 10, settledThrough: seq });
    await older.end();
    expect({ markers: markers(page.events), unsettled: page.unsettled }).toEqual({
      markers: ['final'],
      unsettled: true,
    });
  });

  test("a call's events are listed at once, whatever older transaction is still running", async ({
    services,
    hold,
  }) => {
    const callId = '00000000-0000-4000-8000-000000000001';
    const older = await hold();
    await appendEvents(services.database.db, [{ ...event('of the call'), callId }]);
    const events = await services.journal.eventsOfCall(callId, 10);
    await older.end();
    expect(markers(events)).toEqual(['of the call']);
  });

  test('an open transaction in another database of the cluster holds nothing back', async ({
    services,
    hold,
  }) => {
    const elsewhere = await openDatabase({ driver: 'postgres', url: testPostgresUrl, max: 1 });
    try {
      const other = await hold([], elsewhere);
      await appendEvents(services.database.db, [event('here')]);
      const page = await readEvents(services.database.db, { afterSeq: 0n, limit: 10 });
      await other.end();
      expect({ markers: markers(page.events), unsettled: page.unsettled }).toEqual({
        markers: ['here'],
        unsettled: false,
      });
    } finally {
      await elsewhere.close();
    }
  });

  test('a journal query waits for an older transaction to end and answers with its events and the newer ones', async ({
    services,
    hold,
  }) => {
    const older = await hold([event('older')]);
    await appendEvents(services.database.db, [event('newer')]);
    const answer = services.journal.read({ afterSeq: 0n, limit: 10 });
    await sleep(50);
    await older.end();
    expect(markers(await answer)).toEqual(['older', 'newer']);
  });

  test('a subscriber starting now gets every event committed after it, in position order, and none committed before it', async ({
    services,
    hold,
  }) => {
    const db = services.database.db;
    const older = await hold([event('older, committed after')]);
    await appendEvents(db, [event('newer, committed before')]);
    const iterator = services.journal.stream({}, null)[Symbol.asyncIterator]();
    const first = iterator.next();
    await sleep(20);
    await appendEvents(db, [event('newest, committed after')]);
    await older.end();
    const second = iterator.next();
    const got = [(await first).value as JournalEvent, (await second).value as JournalEvent];
    await iterator.return?.();
    expect(markers(got)).toEqual(['older, committed after', 'newest, committed after']);
  });

  test('the bus delivers an event held back by a transaction that writes no event as soon as that transaction ends', async ({
    services,
    hold,
  }) => {
    const db = services.database.db;
    const silent = await hold();
    const iterator = services.journal.stream({}, 0n)[Symbol.asyncIterator]();
    const next = iterator.next();
    await appendEvents(db, [event('held back')]);
    const early = await Promise.race([next.then(() => 'delivered'), sleep(200).then(() => 'waiting')]);
    await silent.end();
    const got = (await next).value as JournalEvent;
    await iterator.return?.();
    expect({ early, marker: got.payload.marker }).toEqual({ early: 'waiting', marker: 'held back' });
  });
});
