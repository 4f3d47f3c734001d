import { loadConfig } from '../../src/app/config.js';
import { startApp } from '../../src/app/start.js';
import { testTools } from './test-tools.js';

/** The real server plus the test-only tools, for tests that need separate processes. */
startApp(loadConfig(), { extraTools: testTools }).catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
