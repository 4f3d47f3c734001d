import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { mcpHostAnswers } from './tables.js';

export const HOST_ANSWER_CHANNEL = 'ats_host_answer';

/** How long an answer waits for its asker; one whose asker is gone is deleted by a later store. */
export const HOST_ANSWER_TTL_MS = 5 * 60_000;

/**
 * Host answers in transit between processes (`mcp_host_answers`). The answer and its NOTIFY (the
 * request id only: payloads are limited to 8000 bytes, an answer is not) commit together, so the
 * asker is woken only once the row is there to take.
 */
export class HostAnswerStore {
  constructor(
    private readonly db: Db,
    private readonly ttlMs = HOST_ANSWER_TTL_MS,
  ) {}

  /** Keeps `message`, the answer to `requestId` that came in `sessionId`, and wakes the process that asked. */
  async put(requestId: string, sessionId: string, message: Record<string, unknown>): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.delete(mcpHostAnswers).where(lt(mcpHostAnswers.expiresAt, sql`now()`));
      await tx
        .insert(mcpHostAnswers)
        .values({
          requestId,
          sessionId,
          message,
          expiresAt: sql`now() + make_interval(secs => ${this.ttlMs / 1000})`,
        })
        // A host repeating its answer: the first one stands.
        .onConflictDoNothing();
      await tx.execute(sql`select pg_notify(${HOST_ANSWER_CHANNEL}, ${requestId})`);
    });
  }

  /** The unexpired answer to `requestId` from `sessionId`, removed as it is read: at most one taker gets it. */
  async take(requestId: string, sessionId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.db
      .delete(mcpHostAnswers)
      .where(
        and(
          eq(mcpHostAnswers.requestId, requestId),
          eq(mcpHostAnswers.sessionId, sessionId),
          gt(mcpHostAnswers.expiresAt, sql`now()`),
        ),
      )
      .returning({ message: mcpHostAnswers.message });
    return row?.message;
  }
}
