import { bootstrap } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { createAppServer } from './server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const services = await bootstrap(config, logger);
  // Only the server mints the first admin token: it is the one place where the secret is shown.
  const adminSecret = await services.tokens.bootstrapAdmin();
  const server = createAppServer(services);
  const address = await server.listen(config.port, config.host);
  const url = `http://${config.host.includes(':') ? `[${address.address}]` : config.host}:${address.port}/graphql`;
  logger.info({ url, port: address.port }, 'listening');
  if (adminSecret) {
    process.stdout.write(
      `First start: an admin token was created. It is shown only now; keep it:\n  ${adminSecret}\n` +
        `Use it as: Authorization: Bearer ${adminSecret}\n`,
    );
  }
  process.stdout.write(`Agent Tool System listening on ${url} (GraphiQL in a browser)\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await server.close();
    await services.database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Agent Tool System failed to start: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});
