import { and, asc, desc, eq, gt, lt, type SQL, sql } from 'drizzle-orm';
import { badInput, conflict, notFound } from '../core/errors.js';
import { parseInput } from '../core/parse-input.js';
import {
  applyToolUpdate,
  builtInMutableFields,
  type RegisterToolInput,
  registerToolInputSchema,
  specFromRegistration,
  type UpdateToolInput,
  updateToolInputSchema,
} from '../core/tool-input.js';
import type { ToolSource, ToolSpec } from '../core/tool-spec.js';
import type { Db } from '../db/client.js';
import { Cached } from '../journal/cached.js';
import type { Invalidations } from '../journal/invalidations.js';
import type { ToolAvailability } from './availability.js';
import { type ToolRow, tools } from './tables.js';

export function specOf(row: ToolRow): ToolSpec {
  return {
    name: row.name,
    title: row.title,
    description: row.description,
    inputSchema: row.inputSchema,
    outputSchema: row.outputSchema,
    annotations: row.annotations,
    visibility: row.visibility,
    permission: row.permission,
    budget: row.budget,
    source: row.source,
    enabled: row.enabled,
    displayName: row.displayName,
    approvalTemplate: row.approvalTemplate,
  };
}

const rowValues = (spec: ToolSpec, owner: string | null) => ({ ...spec, owner, updatedAt: new Date() });

export interface ToolPage {
  source?: ToolSource | null;
  after?: string | null;
  before?: string | null;
  limit: number;
  inverted: boolean;
}

/**
 * Who owns a registered name inside its source's namespace (`mcp.<server>.…`, `ext.<extensionId>.…`):
 * the server's listing or the extension's own registration then adopts the row instead of
 * refusing it as taken.
 */
function namespaceOwner(spec: ToolSpec): string | null {
  const match = /^(?:mcp|ext)\.([^.]+)\./.exec(spec.name);
  const prefix = spec.source === 'MCP' ? 'mcp.' : spec.source === 'EXTENSION' ? 'ext.' : null;
  return match && prefix && spec.name.startsWith(prefix) ? match[1]! : null;
}

export class RegistryService {
  /** Every tool by name, in name order: every call request and dispatch reads its tool here. */
  private readonly byName: Cached<ReadonlyMap<string, ToolSpec>>;

  constructor(
    private readonly db: Db,
    private readonly changes: Invalidations,
    /** Without it (tools for tests only), registration does not check for an executor. */
    private readonly availability: ToolAvailability | null = null,
  ) {
    this.byName = new Cached(changes, 'registry');
  }

  private table(): Promise<ReadonlyMap<string, ToolSpec>> {
    return this.byName.read(async () => {
      const rows = await this.db.select().from(tools).orderBy(asc(tools.name));
      return new Map(rows.map((row) => [row.name, specOf(row)]));
    });
  }

  async get(name: string): Promise<ToolSpec | null> {
    return (await this.table()).get(name) ?? null;
  }

  async require(name: string): Promise<ToolSpec> {
    const spec = await this.get(name);
    if (!spec) throw notFound(`no tool named ${name}`);
    return spec;
  }

  async all(): Promise<ToolSpec[]> {
    return [...(await this.table()).values()];
  }

  /** Keyset page ordered by name, the shape Pothos' resolveCursorConnection asks for. */
  async page(args: ToolPage): Promise<ToolSpec[]> {
    const conditions: SQL[] = [];
    if (args.source) conditions.push(eq(tools.source, args.source));
    if (args.after) conditions.push(gt(tools.name, args.after));
    if (args.before) conditions.push(lt(tools.name, args.before));
    const rows = await this.db
      .select()
      .from(tools)
      .where(and(...conditions))
      .orderBy(args.inverted ? desc(tools.name) : asc(tools.name))
      .limit(args.limit);
    return rows.map(specOf);
  }

  /**
   * Registers a new tool or replaces a registered one; BUILT_IN tools are never replaced. A tool
   * no executor could ever run (any SKILL tool, an MCP name outside a configured server's
   * namespace, an EXTENSION name outside `ext.<extensionId>.`) is refused: it would only ever
   * fail. What remains is declaring a tool of a configured MCP server or of an extension ahead of
   * its listing (to govern it first); the server or extension then owns and fills the row.
   */
  async register(raw: RegisterToolInput | unknown): Promise<ToolSpec> {
    const spec = specFromRegistration(parseInput(registerToolInputSchema, raw));
    const existing = await this.get(spec.name);
    if (existing?.source === 'BUILT_IN')
      throw conflict(`tool ${spec.name} is BUILT_IN and cannot be replaced`);
    const unavailable = this.availability ? (await this.availability.of([spec])).get(spec.name) : null;
    if (unavailable?.code === 'tool_unavailable') {
      const why = unavailable.reason.replace(/^no executor for it: /, '');
      throw badInput(`input.source: no executor could run ${spec.source} tool ${spec.name}: ${why}`, {
        field: 'source',
      });
    }
    const values = rowValues({ ...spec, enabled: existing?.enabled ?? true }, namespaceOwner(spec));
    return this.changes.transaction(async (tx) => {
      const [row] = await tx
        .insert(tools)
        .values(values)
        .onConflictDoUpdate({ target: tools.name, set: values })
        .returning();
      await this.changes.notify(tx, 'registry');
      return specOf(row!);
    });
  }

  async update(name: string, raw: UpdateToolInput | unknown): Promise<ToolSpec> {
    const update = parseInput(updateToolInputSchema, raw);
    const spec = await this.require(name);
    if (spec.source === 'BUILT_IN') {
      const fixed = Object.entries(update)
        .filter(
          ([field, value]) => value != null && !(builtInMutableFields as readonly string[]).includes(field),
        )
        .map(([field]) => field);
      if (fixed.length > 0) {
        throw conflict(
          `tool ${name} is BUILT_IN: only ${builtInMutableFields.join(', ')} can change, not ${fixed.join(', ')}`,
        );
      }
    }
    const next = applyToolUpdate(spec, update);
    return this.changes.transaction(async (tx) => {
      const [row] = await tx
        .update(tools)
        .set({ ...next, updatedAt: new Date() })
        .where(eq(tools.name, name))
        .returning();
      await this.changes.notify(tx, 'registry');
      return specOf(row!);
    });
  }

  setEnabled(name: string, enabled: boolean): Promise<ToolSpec> {
    return this.update(name, { enabled });
  }

  async remove(name: string): Promise<boolean> {
    const spec = await this.require(name);
    if (spec.source === 'BUILT_IN') throw conflict(`tool ${name} is BUILT_IN and cannot be removed`);
    await this.changes.transaction(async (tx) => {
      await tx.delete(tools).where(eq(tools.name, name));
      await this.changes.notify(tx, 'registry');
    });
    return true;
  }

  /** The server's own tools: defined in code, (re)written at startup, never through the API. */
  upsertBuiltIn(spec: Omit<ToolSpec, 'source' | 'enabled'>): Promise<void> {
    return this.upsertBuiltIns([spec]);
  }

  /**
   * All of them in one statement and one transaction (and one notification), as the server and
   * every test's services start: a statement per tool cost a PGlite start half a second. The
   * definition follows the code (a field a spec leaves out goes back to its default); enabled,
   * visibility, permission and budget stay the admin's choice on an existing row.
   */
  async upsertBuiltIns(specs: readonly Omit<ToolSpec, 'source' | 'enabled'>[]): Promise<void> {
    if (specs.length === 0) return;
    const rows = specs.map((spec) => rowValues({ ...spec, source: 'BUILT_IN', enabled: true }, null));
    const adminChoices = new Set(['name', 'enabled', 'visibility', 'permission', 'budget']);
    const definition = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter(
      (key): key is keyof typeof tools.$inferInsert => !adminChoices.has(key),
    );
    const set = Object.fromEntries(
      definition.map((key) => [key, sql.raw(`excluded.${JSON.stringify(tools[key].name)}`)]),
    );
    await this.changes.transaction(async (tx) => {
      await tx.insert(tools).values(rows).onConflictDoUpdate({ target: tools.name, set });
      await this.changes.notify(tx, 'registry');
    });
  }
}
