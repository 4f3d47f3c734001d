import { startApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

startApp(loadConfig()).catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError
      ? `${error.message}\n`
      : `Agent Tool System failed to start: ${(error as Error).stack ?? String(error)}\n`,
  );
  process.exit(1);
});
