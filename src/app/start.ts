import type { BuiltInTool } from '../calls/tool-contract.js';
import { warmTokenizer } from '../core/tokens.js';
import type { Database } from '../db/client.js';
import { Drain, listenForMetrics, startTracing } from '../features/observability/index.js';
import { bootstrap } from './bootstrap.js';
import type { Config } from './config.js';
import { openConfiguredDatabase } from './database.js';
import { createLogger } from './logger.js';
import { createAppServer } from './server.js';

export interface StartOptions {
  /** Only for test servers: BUILT_IN tools beyond the production set. */
  extraTools?: BuiltInTool[];
  /** The database main.ts started opening before it loaded the rest of the server. */
  database?: Promise<Database>;
}

/** Opens the database, starts the services and the server, prints where it listens; drains on SIGINT/SIGTERM. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<void> {
  const logger = createLogger(config.logLevel);
  const opening = options.database ?? openConfiguredDatabase(config);
  // Before the services are built: executors and queries are wrapped in spans only if tracing is on.
  const stopTracing = config.tracing ? await startTracing(config.tracing) : async () => {};
  const services = await bootstrap(config, logger, options.extraTools, opening);
  // Only the server mints the first admin token: it is the one place where the secret is shown.
  const adminSecret = await services.tokens.bootstrapAdmin();
  await services.start();
  const drain = new Drain();
  const metricsAccess = {
    token: config.metrics.token,
    isAdmin: async (secret: string) => {
      const outcome = await services.identity.authenticate(secret);
      return outcome !== null && 'principal' in outcome && outcome.principal.role === 'ADMIN';
    },
  };
  const metricsServer =
    config.metrics.port === undefined
      ? null
      : await listenForMetrics(
          services.metrics,
          { token: config.metrics.token },
          config.metrics.port,
          config.host,
        );
  const server = createAppServer(services, {
    limits: config.limits,
    maxBodyBytes: config.maxBodyBytes,
    allowedOrigins: config.allowedOrigins,
    publicUrl: config.publicUrl,
    consoleSignIn: config.consoleSignIn,
    draining: () => drain.draining,
    ...(metricsServer ? {} : { metrics: metricsAccess }),
  });
  const address = await server.listen(config.port, config.host);
  const url = `http://${config.host.includes(':') ? `[${address.address}]` : config.host}:${address.port}/graphql`;
  logger.info({ url, port: address.port, metricsPort: metricsServer?.address.port }, 'listening');
  // Built a slice per event-loop turn from now on: not in the start, and not as one pause in the
  // first call that counts tokens (core/tokenizer-build.ts).
  warmTokenizer().catch((error: unknown) => logger.error({ err: error }, 'building the tokenizer failed'));
  if (adminSecret) {
    process.stdout.write(
      `First start: an admin token was created. It is shown only now; keep it:\n  ${adminSecret}\n` +
        `Use it as: Authorization: Bearer ${adminSecret}\n`,
    );
  }
  process.stdout.write(`Agent Tool System listening on ${url} (GraphiQL in a browser)\n`);

  const stop = async (signal: string) => {
    if (drain.draining) return;
    logger.info({ signal }, 'shutting down');
    // Past the limit (plus time to close) the process goes anyway: an orchestrator would kill it.
    setTimeout(() => {
      logger.error({ signal }, 'drain did not finish in time');
      process.exit(1);
    }, config.drainTimeoutMs + 10_000).unref();
    await drain.run(
      {
        closeSubscriptions: async (reason) => server.closeSubscriptions(reason),
        drainCalls: (ms) => services.dispatcher.drain(ms),
        releaseLeases: () => services.dispatcher.releaseLeases(),
        close: async () => {
          await server.close();
          await metricsServer?.close();
          await services.stop();
          await services.database.close();
          await stopTracing();
        },
      },
      config.drainTimeoutMs,
      logger,
    );
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
