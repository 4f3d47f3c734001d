import { eq, sql } from 'drizzle-orm';
import { toolCalls } from '../../calls/tables.js';
import type { Db } from '../../db/client.js';
import type { Metrics } from './metrics.js';

export interface GaugeSources {
  db: Db;
  /** This process's MCP connections and the state of each. */
  mcpStates: () => ReadonlyMap<string, string>;
  /** Listeners of this process's journal bus (each open journal or queue subscription is one). */
  busListeners: () => number;
}

/** Gauges read when scraped: one count for the whole cluster's pending approvals, the rest in memory. */
export function registerServiceGauges(metrics: Metrics, sources: GaugeSources): void {
  metrics.gauge('ats_pending_approvals', 'Calls awaiting approval (the whole cluster).', [], async (set) => {
    const [row] = await sources.db
      .select({ n: sql<number>`count(*)::int` })
      .from(toolCalls)
      .where(eq(toolCalls.status, 'AWAITING_APPROVAL'));
    set({}, row?.n ?? 0);
  });
  metrics.gauge(
    'ats_mcp_connections',
    "This process's MCP server connections, by state.",
    ['state'],
    (set) => {
      const counts = new Map<string, number>();
      for (const state of sources.mcpStates().values()) counts.set(state, (counts.get(state) ?? 0) + 1);
      for (const [state, n] of counts) set({ state }, n);
    },
  );
  metrics.gauge('ats_journal_bus_listeners', "Listeners of this process's journal bus.", [], (set) =>
    set({}, sources.busListeners()),
  );
}
