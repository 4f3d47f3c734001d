import { parseArgs } from 'node:util';
import { mcpCommands } from '../bridge/mcp/index.js';
import { runDefaultsCommands } from '../calls/index.js';
import { type CliIo, type Command, UsageError } from '../cli/command.js';
import { DomainError } from '../core/errors.js';
import { agentCommands } from '../features/agent/index.js';
import { chatCommands } from '../features/chat/index.js';
import { grantCommands } from '../features/grants/index.js';
import { mcpStdioCommands } from '../features/mcp-stdio/index.js';
import { modelConnectionCommands } from '../features/models/index.js';
import { notificationCommands } from '../features/notifications/index.js';
import { skillCommands } from '../features/skill/index.js';
import { tokenCommands } from '../features/tokens/index.js';
import { workspaceCommands } from '../features/workspace/index.js';
import { worldInfoCommands } from '../features/worldinfo/index.js';
import { bootstrap } from './bootstrap.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import type { Services } from './services.js';

const commands: Command<Services>[] = [
  ...tokenCommands,
  ...runDefaultsCommands,
  ...workspaceCommands,
  ...chatCommands,
  ...skillCommands,
  ...worldInfoCommands,
  ...mcpCommands,
  ...modelConnectionCommands,
  ...grantCommands,
  ...notificationCommands,
  ...agentCommands,
];

/**
 * Commands that never open the database: a stdio bridge started by an MCP host must run while
 * the server holds the embedded database, and must not load the server's configuration.
 */
const standaloneCommands: Command<void>[] = [...mcpStdioCommands];

const select = <S>(list: Command<S>[], argv: string[]) =>
  list.find((c) => c.path.every((word, i) => argv[i] === word));

function help(io: CliIo, command?: Command<Services> | Command<void>): void {
  if (command) {
    io.out(`usage: npm run cli -- ${command.usage}\n\n${command.summary}`);
    for (const [name, option] of Object.entries(command.options ?? {}))
      io.out(`  --${name.padEnd(14)} ${option.description}`);
    return;
  }
  io.out('usage: npm run cli -- <command> [options]   (add --help to any command)\n');
  io.out('Works offline on the database the server uses (DATA_DIR or DATABASE_URL). With the embedded');
  io.out('database, stop the server first: PGlite allows one process at a time.\n');
  for (const c of [...commands, ...standaloneCommands])
    io.out(`  ${c.path.join(' ').padEnd(22)} ${c.summary}`);
}

export async function runCli(
  argv: string[],
  io: CliIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const standalone = select(standaloneCommands, argv);
  const command = standalone ?? select(commands, argv);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!command) {
    help(io);
    if (wantsHelp || argv.length === 0) return 0;
    io.err(`\nunknown command: ${argv.join(' ')}`);
    return 2;
  }
  if (wantsHelp) {
    help(io, command);
    return 0;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv.slice(command.path.length),
      options: command.options ?? {},
      allowPositionals: true,
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n`);
    help(io, command);
    return 2;
  }
  if (standalone) {
    try {
      return await standalone.run(parsed as never, undefined, io);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      io.err(`${error.message}\n`);
      help(io, command);
      return 2;
    }
  }
  const config = loadConfig(env);
  const services = await bootstrap(config, createLogger(env.LOG_LEVEL ?? 'warn'));
  try {
    return await (command as Command<Services>).run(parsed as never, services, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n`);
      help(io, command);
      return 2;
    }
    if (DomainError.is(error)) {
      io.err(`${error.code}: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await services.database.close();
  }
}
