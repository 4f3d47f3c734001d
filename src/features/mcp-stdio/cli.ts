import { type Command, UsageError } from '../../cli/command.js';
import { pipeStdioToHttp } from './pipe.js';

/** The gateway URL, checked before anything is sent: a typo should fail at start, not at the first message. */
function gatewayUrl(value: unknown): URL {
  if (typeof value !== 'string' || value === '')
    throw new UsageError('--url is required (e.g. http://127.0.0.1:4000/mcp)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url must be http or https, not ${url.protocol}`);
  return url;
}

/** `--token-env NAME` keeps the secret out of the process list that anyone on the machine can read. */
function bearerToken(values: Record<string, unknown>, env: Record<string, string | undefined>): string {
  const direct = typeof values.token === 'string' ? values.token : undefined;
  const envName = typeof values['token-env'] === 'string' ? values['token-env'] : undefined;
  if (direct !== undefined && envName !== undefined)
    throw new UsageError('give --token or --token-env, not both');
  if (envName !== undefined) {
    const token = env[envName];
    if (!token) throw new UsageError(`--token-env ${envName}: that environment variable is not set or empty`);
    return token.trim();
  }
  if (direct) return direct;
  throw new UsageError('a token is required: --token-env NAME (recommended) or --token <agent token>');
}

/**
 * `mcp-stdio`: for MCP hosts that only launch local commands (Claude Desktop). It needs no
 * database, so it runs beside a server that holds the embedded one.
 */
export const mcpStdioCommands: Command<void>[] = [
  {
    path: ['mcp-stdio'],
    summary: 'Serve the MCP gateway over stdio for hosts that launch a command (needs no database)',
    usage: 'mcp-stdio --url <gateway url> (--token-env NAME | --token <agent token>)',
    options: {
      url: { type: 'string', description: 'the gateway endpoint: http://host:port/mcp or …/mcp/<server>' },
      'token-env': {
        type: 'string',
        description: 'name of the environment variable holding the AGENT token',
      },
      token: {
        type: 'string',
        description: 'the AGENT token itself (visible in the process list: prefer --token-env)',
      },
    },
    async run({ values }, _services, io) {
      const url = gatewayUrl(values.url);
      const token = bearerToken(values, process.env);
      io.err(`mcp-stdio: relaying stdio to ${url}`);
      await pipeStdioToHttp({ url, token, input: process.stdin, output: process.stdout, log: io.err });
      return 0;
    },
  },
];
