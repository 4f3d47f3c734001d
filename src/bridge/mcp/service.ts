import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { specOf } from '../../calls/index.js';
import { tools } from '../../calls/tables.js';
import { badInput, conflict, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import type { Invalidations } from '../../journal/invalidations.js';
import {
  type AddMcpServerInput,
  addMcpServerInputSchema,
  applyMcpServerUpdate,
  type McpServerConfig,
  mcpConfigProblem,
  recordOf,
  type UpdateMcpServerInput,
  updateMcpServerInputSchema,
} from './rules/mcp-server.js';
import { mcpServers, mcpTools } from './tables.js';

export type McpToolRow = typeof mcpTools.$inferSelect;

/**
 * Serialises syncs of one server, and its withdrawal (disable, remove), across every process
 * sharing the database: a sync that read the server as enabled cannot land after it was disabled.
 */
export async function lockMcpServer(tx: Tx, server: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`mcp-sync:${server}`}))`);
}

/**
 * Admin configuration of MCP servers. Each change commits with an `mcp_server_changed` event
 * (names, never env or header values), which is how every process learns to reconnect.
 */
export class McpServerService {
  private readonly listeners: Array<(name: string) => Promise<void>> = [];

  constructor(
    private readonly db: Db,
    private readonly changes: Invalidations,
  ) {}

  /** Called after each committed change, so this process reconciles without waiting for the bus. */
  onChange(listener: (name: string) => Promise<void>): void {
    this.listeners.push(listener);
  }

  list(): Promise<McpServerConfig[]> {
    return this.db.select().from(mcpServers).orderBy(asc(mcpServers.name));
  }

  async get(name: string): Promise<McpServerConfig | null> {
    const [row] = await this.db.select().from(mcpServers).where(eq(mcpServers.name, name));
    return row ?? null;
  }

  async require(name: string): Promise<McpServerConfig> {
    const config = await this.get(name);
    if (!config) throw notFound(`no MCP server named ${name}`);
    return config;
  }

  /** What the server offered at its latest listing, with the registry entry of each tool. */
  async tools(name: string) {
    const rows = await this.db
      .select({ offered: mcpTools, tool: tools })
      .from(mcpTools)
      .leftJoin(tools, eq(tools.name, mcpTools.toolName))
      .where(eq(mcpTools.serverName, name))
      .orderBy(asc(mcpTools.remoteName));
    return rows.map((r) => ({ ...r.offered, tool: r.tool ? specOf(r.tool) : null }));
  }

  async add(raw: AddMcpServerInput | unknown, actor: string): Promise<McpServerConfig> {
    const input = parseInput(addMcpServerInputSchema, raw);
    const values = {
      name: input.name,
      transport: input.transport,
      command: input.command ?? null,
      args: input.args ?? [],
      env: recordOf(input.env),
      cwd: input.cwd ?? null,
      url: input.url ?? null,
      headers: recordOf(input.headers),
      userCredential: input.userCredential ?? null,
      enabled: input.enabled ?? true,
    };
    const problem = mcpConfigProblem(values);
    if (problem) throw badInput(problem);
    const created = await this.db.transaction(async (tx) => {
      const [row] = await tx.insert(mcpServers).values(values).onConflictDoNothing().returning();
      if (!row) throw conflict(`an MCP server named ${input.name} already exists`);
      await this.journal(tx, 'added', row, actor);
      return row;
    });
    await this.changed(created.name);
    return created;
  }

  async update(name: string, raw: UpdateMcpServerInput | unknown, actor: string): Promise<McpServerConfig> {
    const update = parseInput(updateMcpServerInputSchema, raw);
    const updated = await this.db.transaction(async (tx) => {
      const [current] = await tx.select().from(mcpServers).where(eq(mcpServers.name, name)).for('update');
      if (!current) throw notFound(`no MCP server named ${name}`);
      const next = applyMcpServerUpdate(current, update);
      const problem = mcpConfigProblem(next);
      if (problem) throw badInput(problem);
      const [row] = await tx
        .update(mcpServers)
        .set({ ...next, updatedAt: new Date() })
        .where(eq(mcpServers.name, name))
        .returning();
      await this.journal(tx, 'updated', row!, actor);
      return row!;
    });
    await this.changed(name);
    return updated;
  }

  /** Disabling closes every process's connection and disables the server's tools (they come back when it is enabled). */
  async setEnabled(name: string, enabled: boolean, actor: string): Promise<McpServerConfig> {
    const changed = await this.changes.transaction(async (tx) => {
      const [row] = await tx
        .update(mcpServers)
        .set({ enabled, updatedAt: new Date() })
        .where(eq(mcpServers.name, name))
        .returning();
      if (!row) throw notFound(`no MCP server named ${name}`);
      if (!enabled) await this.withdrawTools(tx, name);
      await this.journal(tx, enabled ? 'enabled' : 'disabled', row, actor);
      return row;
    });
    await this.changed(name);
    return changed;
  }

  /** Removes the configuration; the server's tools stay in the registry, disabled, with their history. */
  async remove(name: string, actor: string): Promise<boolean> {
    await this.changes.transaction(async (tx) => {
      const [row] = await tx.select().from(mcpServers).where(eq(mcpServers.name, name)).for('update');
      if (!row) throw notFound(`no MCP server named ${name}`);
      await this.withdrawTools(tx, name);
      await tx.delete(mcpServers).where(eq(mcpServers.name, name));
      await this.journal(tx, 'removed', row, actor);
    });
    await this.changed(name);
    return true;
  }

  /** Disables the server's tools, remembering which were enabled so that only those come back with it. */
  private async withdrawTools(tx: Tx, name: string): Promise<void> {
    await lockMcpServer(tx, name);
    const disabled = await tx
      .update(tools)
      .set({ enabled: false, updatedAt: new Date() })
      .where(and(eq(tools.owner, name), eq(tools.source, 'MCP'), eq(tools.enabled, true)))
      .returning({ name: tools.name });
    await tx
      .update(mcpTools)
      .set({ present: false, updatedAt: new Date() })
      .where(eq(mcpTools.serverName, name));
    if (disabled.length === 0) return;
    await this.changes.notify(tx, 'registry');
    await tx
      .update(mcpTools)
      .set({ disabledBySync: true })
      .where(
        and(
          eq(mcpTools.serverName, name),
          inArray(
            mcpTools.toolName,
            disabled.map((t) => t.name),
          ),
        ),
      );
  }

  private async journal(tx: Tx, action: string, row: McpServerConfig, actor: string): Promise<void> {
    await appendEvents(tx, [
      {
        type: 'mcp_server_changed',
        actor,
        payload: {
          name: row.name,
          action,
          transport: row.transport,
          enabled: row.enabled,
          envNames: Object.keys(row.env),
          headerNames: Object.keys(row.headers),
          userCredential: row.userCredential?.mode ?? null,
        },
      },
    ]);
  }

  private async changed(name: string): Promise<void> {
    await Promise.all(this.listeners.map((listener) => listener(name)));
  }
}
