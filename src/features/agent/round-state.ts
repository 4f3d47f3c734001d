import { and, desc, eq, gte, inArray, notExists, sql } from 'drizzle-orm';
import { openCallStatuses } from '../../calls/index.js';
import { toolCalls } from '../../calls/tables.js';
import type { Db } from '../../db/client.js';
import { type ModelTurnRow, modelTurns } from '../../model/tables.js';
import { FINISH_TOOL } from './rules/stop.js';
import type { AgentJobRow } from './service.js';
import { agentJobs, agentRounds } from './tables.js';

/**
 * Where the run stands after a round: any call still open, whether the round's workspace.finish
 * completed, and whether a turn stored since the loop started has no round (see unrecordedTurn).
 */
export interface CallsState {
  open: boolean;
  finished: boolean;
  unrecorded: boolean;
}

/**
 * One statement for what the loop asks between rounds (it was four: the open calls, the round's
 * turn id, every stored turn, the finish call): it runs once per round, so its round trips count.
 */
export async function callsState(db: Db, job: AgentJobRow): Promise<CallsState> {
  const open = db
    .select({ id: toolCalls.id })
    .from(toolCalls)
    .where(and(eq(toolCalls.runId, job.runId), inArray(toolCalls.status, [...openCallStatuses])))
    .limit(1);
  const finish = db
    .select({ id: toolCalls.id })
    .from(toolCalls)
    .innerJoin(agentRounds, and(eq(agentRounds.runId, toolCalls.runId), eq(agentRounds.round, job.round)))
    .innerJoin(modelTurns, eq(modelTurns.id, agentRounds.turnId))
    .where(
      and(
        eq(toolCalls.runId, job.runId),
        eq(toolCalls.name, FINISH_TOOL),
        eq(toolCalls.status, 'COMPLETED'),
        sql`${modelTurns.providerCallIds} @> jsonb_build_array(${toolCalls.providerCallId})`,
      ),
    )
    .limit(1);
  const stray = db
    .select({ id: modelTurns.id })
    .from(modelTurns)
    .where(
      and(
        eq(modelTurns.runId, job.runId),
        gte(modelTurns.createdAt, job.createdAt),
        notExists(
          db.select({ id: agentRounds.id }).from(agentRounds).where(eq(agentRounds.turnId, modelTurns.id)),
        ),
      ),
    )
    .limit(1);
  const [row] = await db
    .select({
      open: sql<boolean>`exists(${open})`,
      finished: sql<boolean>`exists(${finish})`,
      unrecorded: sql<boolean>`exists(${stray})`,
    })
    .from(agentJobs)
    .where(eq(agentJobs.runId, job.runId));
  return {
    open: row?.open === true,
    finished: row?.finished === true,
    unrecorded: row?.unrecorded !== false,
  };
}

/**
 * The run's latest turn when this loop stored it but recorded no round for it (the process that
 * stored it died first): one statement, since every request asks it.
 */
export async function unrecordedTurn(db: Db, job: AgentJobRow): Promise<ModelTurnRow | null> {
  const [latest] = await db
    .select({ turn: modelTurns, roundId: agentRounds.id })
    .from(modelTurns)
    .leftJoin(agentRounds, eq(agentRounds.turnId, modelTurns.id))
    .where(eq(modelTurns.runId, job.runId))
    .orderBy(desc(modelTurns.index))
    .limit(1);
  if (!latest || latest.roundId !== null || latest.turn.createdAt < job.createdAt) return null;
  return latest.turn;
}
