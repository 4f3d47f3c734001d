/** What `npm run demo -- …` was asked to do, from its arguments and the environment. */
export interface DemoOptions {
  /** The running server's GraphQL URL; null when the demo starts its own. */
  url: string | null;
  /** True when the URL came from the default and nothing answered there: start an embedded server instead. */
  urlIsDefault: boolean;
  adminToken: string | null;
  embedded: boolean;
  /** Approve each waiting call after this many milliseconds; null: wait for a person. */
  autoApproveMs: number | null;
  /** Stop the embedded server when the scenario ends (otherwise it serves until Ctrl-C). */
  exitAtEnd: boolean;
  /** The user the demo's runs act for. */
  user: string;
  /** Play the loop as an MCP host on the gateway's /mcp instead of the scripted GraphQL agent. */
  mcp: boolean;
  help: boolean;
}

export const DEFAULT_URL = 'http://127.0.0.1:4000/graphql';
const DEFAULT_APPROVE_AFTER_MS = 3_000;

export const USAGE = `npm run demo -- [options]

Plays a scripted agent run through the public GraphQL API so the approval console has something to show.

  --url <url>            the running server's GraphQL endpoint (ATS_URL; default ${DEFAULT_URL})
  --token <token>        an ADMIN token of that server (ADMIN_TOKEN)
  --embedded             start an own server on a fresh embedded database in a temp folder (the default
                         when nothing answers at the default URL)
  --auto-approve         approve each waiting call by itself after a few seconds
  --approve-after <ms>   with --auto-approve: how long to wait first (default ${DEFAULT_APPROVE_AFTER_MS})
  --user <id>            the user the run acts for (default alice)
  --mcp                  play an MCP host instead (SDK client on /mcp): list the tools, an allowed call,
                         a call held for approval with its console link, its identical retry's outcome
  --exit                 with an embedded server: stop it when the scenario ends (implied by --auto-approve)
  --help                 this text
`;

export class OptionsError extends Error {
  override name = 'OptionsError';
}

export function parseOptions(argv: string[], env: Record<string, string | undefined>): DemoOptions {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const valued = new Set(['--url', '--token', '--approve-after', '--user']);
  const known = new Set(['--embedded', '--auto-approve', '--exit', '--mcp', '--help', '-h', ...valued]);
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!known.has(name)) throw new OptionsError(`unknown option ${name}\n\n${USAGE}`);
    if (!valued.has(name)) {
      flags.add(name);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === '') throw new OptionsError(`${name} needs a value`);
    values.set(name, value);
  }
  const givenUrl = values.get('--url') ?? env.ATS_URL ?? null;
  const embedded = flags.has('--embedded');
  if (embedded && givenUrl && values.has('--url')) {
    throw new OptionsError('--embedded starts its own server; leave out --url');
  }
  const autoApprove = flags.has('--auto-approve');
  const after = values.get('--approve-after');
  const afterMs = after === undefined ? DEFAULT_APPROVE_AFTER_MS : Number(after);
  if (!Number.isInteger(afterMs) || afterMs < 0) {
    throw new OptionsError('--approve-after takes a whole number of milliseconds');
  }
  if (after !== undefined && !autoApprove) throw new OptionsError('--approve-after goes with --auto-approve');
  return {
    url: embedded ? null : (givenUrl ?? DEFAULT_URL),
    urlIsDefault: !embedded && givenUrl === null,
    adminToken: values.get('--token') ?? (env.ADMIN_TOKEN || null),
    embedded,
    autoApproveMs: autoApprove ? afterMs : null,
    exitAtEnd: flags.has('--exit') || autoApprove,
    user: values.get('--user') ?? 'alice',
    mcp: flags.has('--mcp'),
    help: flags.has('--help') || flags.has('-h'),
  };
}
