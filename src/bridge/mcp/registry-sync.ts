import { and, eq, inArray } from 'drizzle-orm';
import { tools } from '../../calls/tables.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import type { Invalidations } from '../../journal/invalidations.js';
import { lockMcpServer } from './service.js';
import { mcpServers, mcpTools } from './tables.js';
import type { MappedTool } from './tool-mapping.js';

export interface SyncChanges {
  added: string[];
  updated: string[];
  disabled: string[];
  reenabled: string[];
  rejected: Array<{ name: string; reason: string }>;
}

const SYNC_ACTOR = 'system:mcp';

/** The registry fields a server defines; how a tool is governed (permission, budget, visibility, enabled) stays the admin's. */
const definition = (
  spec: Pick<ToolSpec, 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations'>,
) => ({
  title: spec.title,
  description: spec.description,
  inputSchema: spec.inputSchema,
  outputSchema: spec.outputSchema,
  annotations: spec.annotations,
});

/**
 * Writes what a server offers now into the registry, in one transaction. Idempotent: every process
 * connected to the server writes the same listing, and only the first write changes anything (and
 * journals `mcp_tools_changed`). `offered` null means the server offers nothing any more (disabled
 * or removed): all its tools are disabled, none deleted, so their calls keep their history.
 */
export async function syncServerTools(
  registry: Invalidations,
  server: string,
  offered: MappedTool[] | null,
  actor = SYNC_ACTOR,
): Promise<{ changes: SyncChanges; registered: Set<string> }> {
  return registry.transaction(async (tx) => {
    const registered = new Set<string>();
    await lockMcpServer(tx, server);
    const changes: SyncChanges = { added: [], updated: [], disabled: [], reenabled: [], rejected: [] };
    const [config] = await tx.select().from(mcpServers).where(eq(mcpServers.name, server));
    // A listing that arrives after the server was disabled or removed must not bring its tools back.
    const listing = config?.enabled ? (offered ?? []) : [];
    const known = new Map(
      (await tx.select().from(mcpTools).where(eq(mcpTools.serverName, server))).map((r) => [r.remoteName, r]),
    );
    const seen = new Set<string>();

    for (const mapped of listing) {
      if (seen.has(mapped.remoteName)) continue;
      seen.add(mapped.remoteName);
      const before = known.get(mapped.remoteName);
      let rejection = mapped.ok ? null : mapped.reason;
      let toolName: string | null = null;
      if (mapped.ok) {
        const [existing] = await tx
          .select()
          .from(tools)
          .where(eq(tools.name, mapped.spec.name))
          .for('update');
        if (existing && (existing.source !== 'MCP' || existing.owner !== server)) {
          rejection = `the name ${mapped.spec.name} is taken by a ${existing.source} tool that this server does not own`;
        } else if (!existing) {
          await tx.insert(tools).values({ ...mapped.spec, owner: server });
          changes.added.push(mapped.spec.name);
          toolName = mapped.spec.name;
        } else {
          toolName = mapped.spec.name;
          const next = definition(mapped.spec);
          const changed = canonicalJson(next) !== canonicalJson(definition(existing));
          // Back after it disappeared (or after its server was removed and added again): offer it again.
          const returning =
            !existing.enabled && (!before || before.disabledBySync || before.toolName === null);
          if (changed || returning) {
            await tx
              .update(tools)
              .set({ ...next, ...(returning ? { enabled: true } : {}), updatedAt: new Date() })
              .where(eq(tools.name, toolName));
          }
          if (changed) changes.updated.push(toolName);
          if (returning) changes.reenabled.push(toolName);
        }
      }
      if (toolName) registered.add(toolName);
      if (rejection && before?.rejection !== rejection)
        changes.rejected.push({ name: mapped.remoteName, reason: rejection });
      const row = {
        serverName: server,
        remoteName: mapped.remoteName,
        toolName,
        present: true,
        disabledBySync: false,
        rejection,
        hints: mapped.hints,
      };
      if (
        !before ||
        canonicalJson({ ...before, updatedAt: null }) !== canonicalJson({ ...row, updatedAt: null })
      ) {
        await tx
          .insert(mcpTools)
          .values(row)
          .onConflictDoUpdate({
            target: [mcpTools.serverName, mcpTools.remoteName],
            set: { ...row, updatedAt: new Date() },
          });
      }
      // A tool that was registered and is now rejected (its name was taken meanwhile) is no longer offered.
      if (rejection && before?.toolName) await disable(tx, server, [before.toolName], changes);
    }

    const gone = [...known.values()].filter((r) => r.present && !seen.has(r.remoteName));
    if (config && gone.length > 0) {
      await tx
        .update(mcpTools)
        .set({ present: false, updatedAt: new Date() })
        .where(
          and(
            eq(mcpTools.serverName, server),
            inArray(
              mcpTools.remoteName,
              gone.map((r) => r.remoteName),
            ),
          ),
        );
    }
    const disabledNow = await disable(
      tx,
      server,
      gone.flatMap((r) => (r.toolName ? [r.toolName] : [])),
      changes,
    );
    if (disabledNow.length > 0) {
      await tx
        .update(mcpTools)
        .set({ disabledBySync: true })
        .where(and(eq(mcpTools.serverName, server), inArray(mcpTools.toolName, disabledNow)));
    }

    const changed = Object.values(changes).some((list) => list.length > 0);
    if (changed) {
      await appendEvents(tx, [{ type: 'mcp_tools_changed', actor, payload: { server, ...changes } }]);
      await registry.notify(tx, 'registry');
    }
    return { changes, registered };
  });
}

/** Disables the specs that are still enabled and returns their names. */
async function disable(tx: Tx, server: string, names: string[], changes: SyncChanges): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await tx
    .update(tools)
    .set({ enabled: false, updatedAt: new Date() })
    .where(
      and(
        inArray(tools.name, names),
        eq(tools.owner, server),
        eq(tools.source, 'MCP'),
        eq(tools.enabled, true),
      ),
    )
    .returning({ name: tools.name });
  changes.disabled.push(...rows.map((r) => r.name));
  return rows.map((r) => r.name);
}
