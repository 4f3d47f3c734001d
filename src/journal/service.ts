import { setTimeout } from 'node:timers/promises';
import { inArray, type SQLWrapper } from 'drizzle-orm';
import { Repeater } from 'graphql-yoga';
import type { Principal } from '../core/auth.js';
import { badInput } from '../core/errors.js';
import type { JournalEvent } from '../core/journal-event.js';
import type { Db } from '../db/client.js';
import type { JournalBus } from './bus.js';
import { type JournalFilter, readEvents } from './read.js';
import { journalEvents } from './tables.js';

export function parseSeq(value: string | null | undefined): bigint | null {
  if (value == null) return null;
  if (!/^\d{1,19}$/.test(value))
    throw badInput(`afterSeq must be a journal position (digits), not ${JSON.stringify(value)}`);
  return BigInt(value);
}

/**
 * Which events of a filter a principal gets: all of them (the filter already names a run or call
 * it may read, or it sees every run), or only those of runs in its scope. Events outside runs
 * (registry, policy, MCP, admin) belong to no user, so only all-users scopes see them.
 */
export type JournalReach = { all: true } | { all: false; principal: Principal };

/**
 * Who may read which runs' events. The journal knows events, not runs: the lifecycle, which owns
 * runs and calls, gives this port at assembly.
 */
export interface RunReadAccess {
  /** What a principal may read under this filter; throws FORBIDDEN or NOT_FOUND when it may read none of it. */
  authorize(principal: Principal, filter: JournalFilter): Promise<JournalReach>;
  /** The ids of the runs a principal may read, as a subquery; undefined when it reads every run. */
  readableRuns(principal: Principal): SQLWrapper | undefined;
  /** Whether a principal reads the run an event belongs to, answered once per run for one subscriber. */
  visibility(principal: Principal): (runId: string | null | undefined) => Promise<boolean>;
}

/** How long a journal query waits for older transactions to end before it answers with what is settled. */
const SETTLE_WAIT_MS = 2000;

export class JournalService {
  constructor(
    private readonly db: Db,
    private readonly bus: JournalBus,
    private readonly access: RunReadAccess,
  ) {}

  /**
   * Events after a position, in order; with a limited reach, only events of runs in its scope (in
   * SQL). Committed events still above the horizon are waited for (up to `SETTLE_WAIT_MS`), so a
   * client reads its own writes; past the wait it gets the settled part, never a page that would
   * make it skip an event when it resumes after the last one.
   */
  async read(
    filter: JournalFilter & { afterSeq?: bigint | null; limit: number },
    reach: JournalReach = { all: true },
  ): Promise<JournalEvent[]> {
    const scope = reach.all ? undefined : this.access.readableRuns(reach.principal);
    const query = scope ? { ...filter, where: inArray(journalEvents.runId, scope) } : filter;
    const deadline = Date.now() + SETTLE_WAIT_MS;
    for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
      const page = await readEvents(this.db, query);
      if (!page.unsettled || page.events.length >= filter.limit || Date.now() >= deadline) return page.events;
      await setTimeout(pause);
    }
  }

  /** One call's events, every committed one: a lookup nobody resumes from, so no horizon to wait for. */
  async eventsOfCall(callId: string, limit: number): Promise<JournalEvent[]> {
    return (await readEvents(this.db, { callId, limit, unbounded: true })).events;
  }

  /** See `RunReadAccess.authorize`. */
  authorize(principal: Principal, filter: JournalFilter): Promise<JournalReach> {
    return this.access.authorize(principal, filter);
  }

  /** Replays and streams the filter's events; with a limited reach, only those of runs in its scope. */
  stream(filter: JournalFilter, afterSeq: bigint | null, reach: JournalReach = { all: true }) {
    const events = this.bus.stream(filter, afterSeq);
    if (reach.all) return events;
    const mayRead = this.access.visibility(reach.principal);
    return new Repeater<JournalEvent>(async (push, stop) => {
      void stop.then(() => events.return());
      for await (const event of events) {
        if (await mayRead(event.runId)) await push(event);
      }
      await stop;
    });
  }
}
