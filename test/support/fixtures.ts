import { test as base, inject } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import type { Principal } from '../../src/core/auth.js';
import { createGraphQLHandler, type Yoga } from '../../src/graphql/yoga.js';
import { createTestDatabase, resetDatabase, type TestDatabase } from './database.js';
import { allow, newRun } from './lifecycle.js';
import { startServices } from './services.js';
import { workspaceRun } from './workspace.js';

export type Role = Principal['role'];

export interface GqlResult<T = Record<string, unknown>> {
  data?: T | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string; [k: string]: unknown } }>;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read deep response data and assert its exact shape themselves.
export type Gql = <T = Record<string, any>>(
  query: string,
  variables?: Record<string, unknown>,
  token?: string | null,
) => Promise<GqlResult<T>>;

/** Each role's test token acts for u1 (the tests' default user), approvers for alice too. */
const testBindings: Record<Role, Record<string, unknown>> = {
  ADMIN: {},
  HOST: {},
  AGENT: { userId: 'u1', profiles: ['*'] },
  APPROVER: { users: ['alice', 'u1'] },
  VIEWER: { users: ['alice', 'u1'] },
  EXTENSION: { extensionId: 'dice' },
};

interface FileFixtures {
  /** One database per test file; null when the project's database is unavailable. */
  fileDb: TestDatabase | null;
}

interface Fixtures {
  testDb: TestDatabase;
  services: Services;
  yoga: Yoga;
  /** Secrets of one token per role, created through the service. */
  tokens: Record<Role, string>;
  /** Runs an operation in-process through yoga.fetch; the token defaults to the admin's. */
  gql: Gql;
}

/**
 * Chained fixtures: each test file gets its own migrated database on the project's driver (booting
 * one costs a second or two), emptied before every test; then the services over it, an in-process
 * yoga, and a token for each role.
 */
export const dbTest = base.extend<{ $test: Fixtures; $file: FileFixtures }>({
  fileDb: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
    async ({}, use) => {
      if (inject('postgresSkipReason')) return use(null);
      const testDb = await createTestDatabase();
      await use(testDb);
      await testDb.drop();
    },
    { scope: 'file' },
  ],
  testDb: async ({ fileDb, skip }, use) => {
    if (!fileDb) return skip(inject('postgresSkipReason'));
    await resetDatabase(fileDb.database);
    await use(fileDb);
  },
  services: async ({ testDb }, use) => {
    const services = await startServices(testDb.database);
    await use(services);
    await services.stop();
  },
  yoga: async ({ services }: { services: Services }, use: (yoga: Yoga) => Promise<void>) => {
    await use(createGraphQLHandler(services));
  },
  tokens: async (
    { services }: { services: Services },
    use: (tokens: Record<Role, string>) => Promise<void>,
  ) => {
    const make = async (role: Role) =>
      (await services.tokens.create({ name: `test-${role.toLowerCase()}`, role, ...testBindings[role] }))
        .secret;
    await use({
      ADMIN: await make('ADMIN'),
      HOST: await make('HOST'),
      APPROVER: await make('APPROVER'),
      AGENT: await make('AGENT'),
      EXTENSION: await make('EXTENSION'),
      VIEWER: await make('VIEWER'),
    });
  },
  gql: async (
    { yoga, tokens }: { yoga: Yoga; tokens: Record<Role, string> },
    use: (gql: Gql) => Promise<void>,
  ) => {
    await use(
      async (query: string, variables?: Record<string, unknown>, token: string | null = tokens.ADMIN) => {
        const response = await yoga.fetch('http://localhost/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({ query, variables }),
        });
        return (await response.json()) as never;
      },
    );
  },
});

/** `dbTest` plus `run`: an agent's run on profile p1 that may call every test tool. */
export const runTest = dbTest.extend<{ run: RunRow }>({
  run: async ({ services }, use) => {
    await allow(services);
    await use(await newRun(services));
  },
});

/** `dbTest` plus `run`: an agent's run on workspace ws-1, its profile allowed every workspace tool. */
export const workspaceTest = dbTest.extend<{ run: RunRow }>({
  run: async ({ services }, use) => {
    await use(await workspaceRun(services));
  },
});
