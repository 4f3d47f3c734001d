import { createLogger } from '../../src/app/logger.js';
import { createAppServer } from '../../src/app/server.js';
import { createServices } from '../../src/app/services.js';
import { openDatabase } from '../../src/db/client.js';
import { noTool } from '../lifecycle/bench-tools.js';

/**
 * One server process of the cross-process bench (forked by index.ts): the services and HTTP/WS
 * server a deployment runs, on the database the parent migrated. It reports its port and stops
 * when told to.
 */
export const ASK_TOOL = 'bench.ask';

process.once('message', async (url: string) => {
  const database = await openDatabase({ driver: 'postgres', url });
  const services = createServices(database, createLogger('silent'), { extraTools: [noTool(ASK_TOOL)] });
  await services.start();
  const server = createAppServer(services);
  const address = await server.listen(0, '127.0.0.1');
  process.send!({ port: address.port });
  process.once('message', async () => {
    await server.close();
    await services.stop();
    await database.close();
    process.disconnect();
  });
});
