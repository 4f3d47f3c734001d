import { and, asc, eq, inArray, notInArray } from 'drizzle-orm';
import { specOf } from '../../calls/index.js';
import { tools } from '../../calls/tables.js';
import type { Principal } from '../../core/auth.js';
import { conflict, forbidden, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import { normalizeAnnotations, normalizeBudget, type ToolSpec } from '../../core/tool-spec.js';
import type { Db } from '../../db/client.js';
import type { Invalidations } from '../../journal/invalidations.js';
import {
  type ExtensionToolInput,
  extensionToolName,
  localNameSchema,
  registerExtensionToolsInputSchema,
} from './rules/extension-tool.js';

/** The extension a principal speaks for; only EXTENSION tokens have one. */
export function extensionOf(principal: Principal): string {
  if (principal.role !== 'EXTENSION' || !principal.extensionId)
    throw forbidden('only an EXTENSION token names an extension');
  return principal.extensionId;
}

/**
 * Seed §13: "extension registers tool metadata → ToolRegistry marks source=extension". An extension
 * writes only rows it owns (source EXTENSION, owner = its id, under its own namespace), and sees
 * only those. How a tool is governed (visibility, permission, budget) is the admin's: a
 * re-registration keeps it.
 */
export class ExtensionToolService {
  constructor(
    private readonly db: Db,
    private readonly changes: Invalidations,
  ) {}

  async list(principal: Principal): Promise<ToolSpec[]> {
    const extensionId = extensionOf(principal);
    const rows = await this.db
      .select()
      .from(tools)
      .where(and(eq(tools.source, 'EXTENSION'), eq(tools.owner, extensionId)))
      .orderBy(asc(tools.name));
    return rows.map(specOf);
  }

  async register(raw: unknown, principal: Principal): Promise<ToolSpec[]> {
    const extensionId = extensionOf(principal);
    const input = parseInput(registerExtensionToolsInputSchema, raw);
    const names = input.tools.map((t) => extensionToolName(extensionId, t.name));
    return this.changes.transaction(async (tx) => {
      const existing = names.length
        ? await tx.select().from(tools).where(inArray(tools.name, names)).for('update')
        : [];
      const foreign = existing.find((row) => row.source !== 'EXTENSION' || row.owner !== extensionId);
      if (foreign) throw conflict(`the name ${foreign.name} is taken by a tool this extension does not own`);
      const byName = new Map(existing.map((row) => [row.name, row]));
      const registered: ToolSpec[] = [];
      for (const tool of input.tools) {
        const name = extensionToolName(extensionId, tool.name);
        const previous = byName.get(name);
        const values = {
          ...definitionOf(tool),
          name,
          owner: extensionId,
          source: 'EXTENSION' as const,
          enabled: true,
          updatedAt: new Date(),
        };
        const governance = {
          visibility: previous?.visibility ?? 'MODEL',
          permission: previous?.permission ?? 'ALWAYS_ALLOW',
          budget: previous?.budget ?? normalizeBudget(null),
        };
        const [row] = await tx
          .insert(tools)
          .values({ ...values, ...governance })
          .onConflictDoUpdate({ target: tools.name, set: values })
          .returning();
        registered.push(specOf(row!));
      }
      if (input.replace) {
        const stale = and(
          eq(tools.source, 'EXTENSION'),
          eq(tools.owner, extensionId),
          eq(tools.enabled, true),
          names.length ? notInArray(tools.name, names) : undefined,
        );
        await tx.update(tools).set({ enabled: false, updatedAt: new Date() }).where(stale);
      }
      await this.changes.notify(tx, 'registry');
      return registered;
    });
  }

  /** Disables, never deletes: calls made with a tool keep pointing at it. */
  async unregister(localNames: string[], principal: Principal): Promise<ToolSpec[]> {
    const extensionId = extensionOf(principal);
    const names = localNames.map((n) => extensionToolName(extensionId, parseInput(localNameSchema, n)));
    return this.changes.transaction(async (tx) => {
      const rows = names.length
        ? await tx
            .update(tools)
            .set({ enabled: false, updatedAt: new Date() })
            .where(
              and(inArray(tools.name, names), eq(tools.source, 'EXTENSION'), eq(tools.owner, extensionId)),
            )
            .returning()
        : [];
      const missing = names.filter((n) => !rows.some((r) => r.name === n));
      if (missing.length > 0) throw notFound(`this extension has no tool named ${missing.join(', ')}`);
      await this.changes.notify(tx, 'registry');
      return rows.map(specOf);
    });
  }
}

function definitionOf(tool: ExtensionToolInput) {
  return {
    title: tool.title ?? tool.displayName ?? tool.name,
    displayName: tool.displayName ?? null,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: normalizeAnnotations(tool.annotations),
    approvalTemplate: tool.approvalMessageTemplate ?? null,
  };
}
