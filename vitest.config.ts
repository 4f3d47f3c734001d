import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests sit beside the module they specify (test/features/workspace/… for src/features/workspace/…);
// the suffix says what a test needs: `.db.test.ts` a database, `.process.test.ts` child processes,
// `.browser.test.ts` Chromium.
const dbTests = ['test/**/*.db.test.ts'];
const processTests = ['test/**/*.process.test.ts'];
const browserTests = ['test/**/*.browser.test.ts'];

/**
 * The database projects share one module graph across the files of a worker (isolate: false): with
 * isolation each file imported the server's modules again, built the tokenizer again and compiled
 * PGlite again, seconds per file that were most of a run. Each file still gets its own database
 * (a file-scoped fixture) and each test fresh services over emptied tables; no db test mocks a
 * module, and the environment variables three of them set have names of their own.
 */
const dbProject = {
  include: dbTests,
  globalSetup: ['test/support/global-setup.ts'],
  isolate: false,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

/**
 * unit: pure logic, once. pglite and postgres: the same database suites on each driver.
 * process: real servers as child processes (ports, signals), once.
 * browser: headless Chromium driving the console and GraphiQL of a server process, once.
 */
export default defineConfig({
  // graphql ships CJS (main) and ESM (module) builds. Node loads the CJS one for Pothos and yoga;
  // without this alias Vite would hand test code the ESM one, and the two do not mix.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    // One worker a core, not vitest's default of one fewer: most files wait on Postgres, child
    // processes or sockets, so on 2 cores two files at a time finish the suite in about half the time.
    maxWorkers: availableParallelism(),
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.test-output/results.json' }]]
      : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...dbTests, ...processTests, ...browserTests],
          // A 2-core machine running every project at once: the tokenizer build alone can take seconds.
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: { name: 'pglite', ...dbProject },
      },
      {
        extends: true,
        test: { name: 'postgres', ...dbProject },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: processTests,
          globalSetup: ['test/support/build-server.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          // Headless Chromium against a server process (test/browser/support.ts); SKIP_BROWSER_TESTS=1
          // reports them skipped. Generous limits: a hang fails with the test's name, not the run's.
          name: 'browser',
          include: browserTests,
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // One file at a time, after the other projects: each file boots a server and a Chromium.
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
