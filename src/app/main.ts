import { ConfigError, loadConfig } from './config.js';
import { openConfiguredDatabase } from './database.js';

try {
  const config = loadConfig();
  // Opened before the rest of the server is imported: PGlite reads and compiles its 9 MB of
  // WebAssembly on other threads while this one loads the modules.
  const database = openConfiguredDatabase(config);
  // Awaited by startApp; until then a failure must not count as an unhandled rejection.
  database.catch(() => {});
  const { startApp } = await import('./start.js');
  await startApp(config, { database });
} catch (error) {
  process.stderr.write(
    error instanceof ConfigError
      ? `${error.message}\n`
      : `Agent Tool System failed to start: ${(error as Error).stack ?? String(error)}\n`,
  );
  process.exit(1);
}
