import { defineConfig } from 'vitest/config';

const dbTests = ['test/db/**/*.test.ts', 'test/api/**/*.test.ts'];

/**
 * unit: pure logic, once. pglite and postgres: the same database suites on each driver.
 * process: real servers as child processes (ports, signals), once.
 */
export default defineConfig({
  // graphql ships CJS (main) and ESM (module) builds. Node loads the CJS one for Pothos and yoga;
  // without this alias Vite would hand test code the ESM one, and the two do not mix.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.test-output/results.json' }]]
      : ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'pglite',
          include: dbTests,
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: dbTests,
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
