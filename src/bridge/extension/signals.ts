import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/tx.js';

export const BRIDGE_CHANNEL = 'ats_bridge';

/**
 * Cross-process wake-ups, sent inside the writing transaction so they arrive at commit. They carry
 * ids only; receivers re-read the rows, and a periodic poll covers any notification that is lost.
 */
export type BridgeSignal =
  | { kind: 'invocation'; extensionId: string; callId: string }
  | { kind: 'settled'; callId: string }
  | { kind: 'disconnected'; extensionId: string };

export async function signal(tx: Executor, message: BridgeSignal): Promise<void> {
  await tx.execute(sql`select pg_notify(${BRIDGE_CHANNEL}, ${JSON.stringify(message)})`);
}

export function parseSignal(payload: string): BridgeSignal | null {
  try {
    const value = JSON.parse(payload) as BridgeSignal;
    return typeof value === 'object' && value !== null && 'kind' in value ? value : null;
  } catch {
    return null;
  }
}
