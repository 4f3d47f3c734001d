import type { BuiltInTool } from '../calls/tool-contract.js';
import { bootstrap } from './bootstrap.js';
import type { Config } from './config.js';
import { createLogger } from './logger.js';
import { createAppServer } from './server.js';

export interface StartOptions {
  /** Only for test servers: BUILT_IN tools beyond the production set. */
  extraTools?: BuiltInTool[];
}

/** Opens the database, starts the services and the server, prints where it listens; stops on SIGINT/SIGTERM. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<void> {
  const logger = createLogger(config.logLevel);
  const services = await bootstrap(config, logger, options.extraTools);
  // Only the server mints the first admin token: it is the one place where the secret is shown.
  const adminSecret = await services.tokens.bootstrapAdmin();
  await services.start();
  const server = createAppServer(services, { limits: config.limits, allowedOrigins: config.allowedOrigins });
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
    await services.stop();
    await services.database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
