import { ConfigError, loadConfig } from './config.js';
import { startApp } from './start.js';

startApp(loadConfig()).catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError
      ? `${error.message}\n`
      : `Agent Tool System failed to start: ${(error as Error).stack ?? String(error)}\n`,
  );
  process.exit(1);
});
