import { asc, eq } from 'drizzle-orm';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import {
  DEFAULT_BASE_URLS,
  DEFAULT_TIMEOUT_MS,
  type ModelConnection,
  type SetModelConnectionInput,
  samplingOf,
  setModelConnectionInputSchema,
} from './connection-input.js';
import { modelConnections } from './tables.js';

/** What may be shown of a connection: everything but the secrets' values. */
export function publicView(connection: ModelConnection) {
  const { apiKey, headers, ...rest } = connection;
  return { ...rest, hasApiKey: apiKey !== null, headerNames: Object.keys(headers) };
}

/**
 * Admin configuration of model connections. Each change commits with a `model_connection_changed`
 * event that names the secrets but never carries their values.
 */
export class ModelConnectionService {
  constructor(private readonly db: Db) {}

  list(): Promise<ModelConnection[]> {
    return this.db.select().from(modelConnections).orderBy(asc(modelConnections.name));
  }

  async get(name: string): Promise<ModelConnection | null> {
    const [row] = await this.db.select().from(modelConnections).where(eq(modelConnections.name, name));
    return row ?? null;
  }

  async require(name: string): Promise<ModelConnection> {
    const connection = await this.get(name);
    if (!connection) throw notFound(`no model connection named ${name}`);
    return connection;
  }

  /** Creates or replaces the connection; secrets left out are kept (they cannot be read back to re-send). */
  async set(raw: SetModelConnectionInput | unknown, actor: string): Promise<ModelConnection> {
    const input = parseInput(setModelConnectionInputSchema, raw);
    return this.db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(modelConnections)
        .where(eq(modelConnections.name, input.name))
        .for('update');
      const values = {
        name: input.name,
        wireFormat: input.wireFormat,
        baseUrl: (input.baseUrl ?? DEFAULT_BASE_URLS[input.wireFormat]).replace(/\/+$/, ''),
        model: input.model,
        sampling: samplingOf(input.sampling),
        timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        apiKey: input.apiKey === undefined ? (current?.apiKey ?? null) : input.apiKey,
        headers:
          input.headers === undefined || input.headers === null
            ? (current?.headers ?? {})
            : Object.fromEntries(input.headers.map((h) => [h.name, h.value])),
      };
      const [row] = await tx
        .insert(modelConnections)
        .values(values)
        .onConflictDoUpdate({ target: modelConnections.name, set: { ...values, updatedAt: new Date() } })
        .returning();
      await this.journal(tx, current ? 'updated' : 'added', row!, actor);
      return row!;
    });
  }

  async remove(name: string, actor: string): Promise<boolean> {
    await this.db.transaction(async (tx) => {
      const [row] = await tx.delete(modelConnections).where(eq(modelConnections.name, name)).returning();
      if (!row) throw notFound(`no model connection named ${name}`);
      await this.journal(tx, 'removed', row, actor);
    });
    return true;
  }

  private async journal(tx: Tx, action: string, row: ModelConnection, actor: string): Promise<void> {
    const { createdAt: _c, updatedAt: _u, ...shown } = publicView(row);
    await appendEvents(tx, [{ type: 'model_connection_changed', actor, payload: { ...shown, action } }]);
  }
}
