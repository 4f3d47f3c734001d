import { ConfigError } from './config.js';
import { runCli } from './run-cli.js';

const io = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
};

runCli(process.argv.slice(2), io)
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    io.err(error instanceof ConfigError ? error.message : ((error as Error).stack ?? String(error)));
    process.exit(1);
  });
