import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { graphqlErrorCodes } from '../src/core/graphql-error-codes.js';
import { toolErrorCodes, toolErrorSources } from '../src/core/tool-error-codes.js';
import { toolErrorKinds } from '../src/core/tool-result.js';

/**
 * docs/errors.md, printed from the two tables in src/core: `errors:print` writes it, `errors:check`
 * fails when the committed file is not what the tables print (an optional path checks another file).
 */
const kindMeaning: Record<(typeof toolErrorKinds)[number], string> = {
  RECOVERABLE: 'a result the model reads and can act on; the run goes on.',
  POLICY_DENIED:
    "policy or a person said no; the run fails (`FAIL_RUN`) or the model gets the denied result (`RETURN_DENIED_RESULT`), by the run's strategy.",
  SYSTEM_FAILURE: 'the runtime cannot go on safely; the run fails.',
};

const cell = (text: string) => text.replaceAll('|', '\\|');

function toolSection(): string[] {
  const lines: string[] = [];
  for (const [source, title] of Object.entries(toolErrorSources)) {
    lines.push(`### ${title}`, '', '| code | kind | meaning |', '|---|---|---|');
    for (const [code, entry] of Object.entries(toolErrorCodes)) {
      if (entry.source !== source) continue;
      lines.push(`| \`${code}\` | ${entry.kinds.join(', ')} | ${cell(entry.meaning)} |`);
    }
    lines.push('');
  }
  return lines;
}

function graphqlSection(): string[] {
  const lines = ['| code | from | HTTP status | meaning | other `extensions` |', '|---|---|---|---|---|'];
  for (const [code, entry] of Object.entries(graphqlErrorCodes)) {
    const status = 'status' in entry ? entry.status : '';
    const extra = 'extensions' in entry ? cell(entry.extensions) : '';
    lines.push(`| \`${code}\` | ${entry.from.join(', ')} | ${status} | ${cell(entry.meaning)} | ${extra} |`);
  }
  return lines;
}

export function errorsMarkdown(): string {
  return [
    '# Errors',
    '',
    '<!-- Generated from src/core/tool-error-codes.ts and src/core/graphql-error-codes.ts by',
    '     `npm run errors:print`; edit the tables, not this file (`npm run errors:check` fails when it is stale). -->',
    '',
    'Two kinds of error reach a client, and they never mix:',
    '',
    '- [a failed tool call](#tool-error-codes) is data: the call ends `FAILED` (or `DENIED`, `EXPIRED`,',
    '  `CANCELLED`) with `ToolCall.error { kind code message }`, the journal event carries it, and the model',
    '  reads the message with `structured.error { kind code }`;',
    '- [a refused GraphQL operation](#graphql-error-codes) is a GraphQL error whose `extensions.code` says why.',
    '',
    '## Tool error codes',
    '',
    'The class (`ToolErrorKind`) says what happens to the run:',
    '',
    ...toolErrorKinds.map((kind) => `- \`${kind}\`: ${kindMeaning[kind]}`),
    '',
    "The codes below are the server's own; a tool that comes from outside (an extension, an MCP server) may",
    'report its own failure as a result with `isError`, and a tool family may name its own code. A run the',
    "[agent loop](agent-loop.md) ends carries its stop reason as the run error's code.",
    '',
    ...toolSection(),
    '## GraphQL error codes',
    '',
    "`from` says who gives the code: a service (its refusal, passed on with its details), this server's",
    'GraphQL and HTTP layers (auth, limits, masking) or graphql-yoga (the request itself). Without an HTTP',
    'status the answer is 200. Two refusals carry no code: a document over the depth, alias, directive or',
    'cost limits of graphql-armor (`src/graphql/yoga.ts`; the message starts `Syntax Error:`), and a request',
    'a browser could send cross-site without a preflight (HTTP 403: send `Authorization` or',
    '`x-graphql-yoga-csrf`).',
    '',
    ...graphqlSection(),
    '',
  ].join('\n');
}

/** Null when `committed` is what the tables print; otherwise what to do about it. */
export function staleness(committed: string | null, path: string): string | null {
  if (committed === errorsMarkdown()) return null;
  return `${path} is ${committed === null ? 'missing' : 'stale'}: run \`npm run errors:print\` and commit it.`;
}

function main(args: string[]) {
  const check = args.includes('--check');
  const path = args.find((arg) => !arg.startsWith('--')) ?? 'docs/errors.md';
  const target = new URL(path, pathToFileURL(`${process.cwd()}/`));
  if (!check) {
    writeFileSync(target, errorsMarkdown());
    process.stdout.write(`wrote ${path}\n`);
    return;
  }
  let committed: string | null = null;
  try {
    committed = readFileSync(target, 'utf8');
  } catch {}
  const problem = staleness(committed, path);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  process.stdout.write(`${path} is up to date.\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
