import { userScopeOf } from '../core/access.js';
import type { Principal } from '../core/auth.js';
import { forbidden, notFound } from '../core/errors.js';
import type { Db } from '../db/client.js';
import type { JournalFilter } from '../journal/read.js';
import type { JournalReach, RunReadAccess } from '../journal/service.js';
import type { ToolCallService } from './lifecycle/tool-call-service.js';
import type { RunService } from './run-service.js';
import { runScope } from './run-service.js';
import { runs } from './tables.js';

/** Enough run ids to cover a busy dashboard's day; past it the cache starts over rather than grow. */
const MAX_CACHED_RUNS = 10_000;

/** Who reads which runs' events: the journal's port, answered by the lifecycle that owns runs and calls. */
export class JournalAccess implements RunReadAccess {
  constructor(
    private readonly db: Db,
    private readonly runs: RunService,
    private readonly calls: ToolCallService,
  ) {}

  /**
   * An agent reads only the runs its token created, so it must name one (or a call of one):
   * anything else is FORBIDDEN, as it always was. People bound to users read the runs of those
   * users: a named run or call outside them is NOT_FOUND, and without one they get only their
   * runs' events. Extensions do not read the journal.
   */
  async authorize(principal: Principal, filter: JournalFilter): Promise<JournalReach> {
    if (principal.role === 'EXTENSION') throw forbidden('extensions do not read the journal');
    if (principal.role === 'AGENT') {
      await this.authorizeAgent(principal, filter);
      return { all: true };
    }
    if (userScopeOf(principal).all) return { all: true };
    if (filter.callId && !(await this.calls.get(filter.callId, principal)))
      throw notFound(`no tool call ${filter.callId}`);
    if (filter.runId && !(await this.runs.get(filter.runId, principal)))
      throw notFound(`no run ${filter.runId}`);
    return filter.callId || filter.runId ? { all: true } : { all: false, principal };
  }

  private async authorizeAgent(principal: Principal, filter: JournalFilter): Promise<void> {
    let runId = filter.runId ?? null;
    if (filter.callId) {
      const call = await this.calls.get(filter.callId);
      if (!call) throw forbidden('agents read the journal of their own runs only');
      if (runId && runId !== call.runId) throw forbidden('that call is not in that run');
      runId = call.runId;
    }
    if (!runId || !(await this.runs.get(runId, principal))) {
      throw forbidden('agents read the journal of their own runs only: pass the runId of one');
    }
  }

  readableRuns(principal: Principal) {
    const scope = runScope(principal);
    return scope ? this.db.select({ id: runs.id }).from(runs).where(scope) : undefined;
  }

  /**
   * A run's user and creating token never change, so each answer is kept for the rest of the
   * subscription: one lookup per run, not per event. An event of no run is seen only by all-users scopes.
   */
  visibility(principal: Principal): (runId: string | null | undefined) => Promise<boolean> {
    if (principal.role !== 'AGENT' && userScopeOf(principal).all) return async () => true;
    const seen = new Map<string, boolean>();
    return async (runId) => {
      if (!runId) return false;
      let visible = seen.get(runId);
      if (visible === undefined) {
        visible = (await this.runs.get(runId, principal)) !== null;
        if (seen.size >= MAX_CACHED_RUNS) seen.clear();
        seen.set(runId, visible);
      }
      return visible;
    };
  }
}
