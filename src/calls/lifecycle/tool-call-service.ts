import { inArray, type SQL } from 'drizzle-orm';
import type { Principal } from '../../core/auth.js';
import type { Db } from '../../db/client.js';
import { type CallPageFilter, pageOfCalls } from '../call-pages.js';
import type { PolicyService } from '../policy-service.js';
import type { RegistryService } from '../registry-service.js';
import { type RunService, runScope } from '../run-service.js';
import { type RunRow, runs as runRows, type ToolCallRow, toolCalls } from '../tables.js';
import type { DecideInput } from './approvals.js';
import { decide } from './decisions.js';
import type { LifecycleContext, LifecyclePorts } from './ports.js';
import { callById, readableCall } from './readable-call.js';
import { type RejectedCallInput, type RequestOptions, recordRejected, requestCall } from './request.js';

export interface ToolCallServiceDeps {
  db: Db;
  runs: RunService;
  registry: RegistryService;
  policy: PolicyService;
}

/**
 * The calls of runs: requested (request.ts), decided by people (decisions.ts) and read. Its ports
 * (dispatch, the inline runner, the decision check, grants) are required when it is built.
 */
export class ToolCallService {
  private readonly ctx: LifecycleContext;

  constructor(deps: ToolCallServiceDeps, ports: LifecyclePorts) {
    this.ctx = { ...deps, ports };
  }

  /** The SQL condition "the call's run is one this principal sees"; undefined when it sees every run. */
  inScope(principal: Principal): SQL | undefined {
    const scope = runScope(principal);
    if (!scope) return undefined;
    return inArray(toolCalls.runId, this.ctx.db.select({ id: runRows.id }).from(runRows).where(scope));
  }

  async get(callId: string, principal?: Principal): Promise<ToolCallRow | null> {
    if (principal) return (await readableCall(this.ctx.db, callId, principal))?.call ?? null;
    return callById(this.ctx.db, callId);
  }

  /** A page of calls, oldest first; see pageOfCalls. */
  page(filter: CallPageFilter) {
    return pageOfCalls(this.ctx.db, filter, filter.seenBy ? this.inScope(filter.seenBy) : undefined);
  }

  /** See requestCall. */
  request(raw: unknown, principal: Principal, options: RequestOptions = {}): Promise<ToolCallRow> {
    return requestCall(this.ctx, raw, principal, options);
  }

  /** See recordRejected. */
  recordRejected(input: RejectedCallInput, principal: Principal): Promise<ToolCallRow> {
    return recordRejected(this.ctx, input, principal);
  }

  approve(callId: string, input: DecideInput, principal: Principal): Promise<ToolCallRow> {
    return decide(this.ctx, callId, true, input, principal);
  }

  deny(callId: string, input: DecideInput, principal: Principal): Promise<ToolCallRow> {
    return decide(this.ctx, callId, false, input, principal);
  }

  runOf(call: ToolCallRow): Promise<RunRow | null> {
    return this.ctx.runs.get(call.runId);
  }
}
