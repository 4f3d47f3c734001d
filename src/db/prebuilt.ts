import type { Query } from 'drizzle-orm';
import { PgDatabase, PgDialect, type PgSession, type SelectedFieldsOrdered } from 'drizzle-orm/pg-core';
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
