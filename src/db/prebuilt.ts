import { type Column, getTableColumns, is, type Query, SQL, sql } from 'drizzle-orm';
import {
  PgDatabase,
  PgDialect,
  type PgSession,
  type PgTable,
  type SelectedFieldsOrdered,
} from 'drizzle-orm/pg-core';
import type { Executor } from './tx.js';

/** What Drizzle hands its session when a built query is to run: kept once, reused on every run. */
interface Built {
  query: Query;
  fields: SelectedFieldsOrdered | undefined;
  arrayMode: boolean;
  mapper: ((rows: unknown[][]) => unknown) | undefined;
  joinsNotNullableMap?: Record<string, boolean>;
}

type PrepareArgs = [Query, SelectedFieldsOrdered | undefined, string | undefined, boolean, Built['mapper']];

/** A session that runs nothing: it keeps what a builder's `prepare()` hands it. */
const keeping = {
  prepareQuery: (...[query, fields, , arrayMode, mapper]: PrepareArgs) => {
    const built: Built & { setToken(): Built } = {
      query,
      fields,
      arrayMode,
      mapper,
      setToken: () => built,
    };
    return built;
  },
} as unknown as PgSession;

/** Builds on no connection: the same dialect (no casing) as the databases client.ts opens. */
const building = new PgDatabase(new PgDialect(), keeping, undefined);

interface Preparable<R> {
  prepare(name?: string): { execute(values?: Record<string, unknown>): Promise<R> };
}

/**
 * A statement of the call path built once by Drizzle, with `sql.placeholder` for what changes
 * between runs, and run on any executor (the database or a transaction, Postgres or PGlite) with
 * the values of its placeholders. Drizzle's builder turns every column of a select into SQL on
 * each run, which was the larger part of the process's CPU per call after the database (issue
 * 30): here only the values are bound, and rows are mapped by Drizzle as before.
 */
export function prebuilt<R>(
  build: (db: PgDatabase<never, never, never>) => Preparable<R>,
): (executor: Executor, values: Record<string, unknown>) => Promise<R> {
  let built: Built | undefined;
  return (executor, values) => {
    // Built at its first run, when every table it names is loaded. `prepare` on the keeping
    // session returns what it kept, whatever its declared type says.
    built ??= build(building as never).prepare() as unknown as Built;
    const prepared = executor._.session.prepareQuery(
      built.query,
      built.fields,
      undefined,
      built.arrayMode,
      built.mapper as never,
    );
    (prepared as unknown as Built).joinsNotNullableMap = built.joinsNotNullableMap;
    return prepared.execute(values) as Promise<R>;
  };
}

/**
 * An insert of one row into `table` with `returning()` of the whole row, built once. Every column
 * is a placeholder (Drizzle writes `default` for each one a row leaves out, so its SQL would differ
 * between rows): a column the row leaves out gets the default its table declares, or null. One
 * whose default is SQL (`now()`, `gen_random_uuid()`) must be given.
 */
export function prebuiltInsert<T extends PgTable>(
  table: T,
): (executor: Executor, row: T['$inferInsert']) => Promise<T['$inferSelect'][]> {
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>);
  // Raw placeholders, not Drizzle's column params: Drizzle would encode a null too (a jsonb column
  // would store JSON `null`); the values are encoded below as Drizzle encodes a built insert's.
  const placeholders = Object.fromEntries(columns.map(([key]) => [key, sql`${sql.placeholder(key)}`]));
  const insert = prebuilt<T['$inferSelect'][]>((db) =>
    db
      .insert(table)
      .values(placeholders as never)
      .returning(),
  );
  // Async so that a missing value rejects; the statement is still made before the first await.
  return async (executor, row) => {
    const given = row as Record<string, unknown>;
    const values: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = given[key] !== undefined ? given[key] : defaultOf(key, column);
      values[key] = value === null ? null : column.mapToDriverValue(value);
    }
    return insert(executor, values);
  };
}

function defaultOf(key: string, column: Column): unknown {
  if (!column.hasDefault) return null;
  const value = column.defaultFn ? column.defaultFn() : column.default;
  if (is(value, SQL)) throw new Error(`a prebuilt insert needs a value for ${key}: its default is SQL`);
  return value;
}
