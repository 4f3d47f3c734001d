import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';

/**
 * The MCP inspector's CLI (devDependency @modelcontextprotocol/inspector-cli). Its entry is run
 * from its own folder: it finds its package.json by a path relative to the working directory.
 */
const ENTRY = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js',
);

export interface InspectorRequest {
  token?: string;
  /** Extra HTTP headers, e.g. { 'X-Profile-Id': 'p1' }. */
  headers?: Record<string, string>;
  method: 'tools/list' | 'tools/call' | 'resources/list' | 'prompts/list' | 'logging/setLevel';
  toolName?: string;
  /** Values are passed as `k=v`; the CLI reads v as JSON when it parses, as a string otherwise. */
  toolArgs?: Record<string, string | number | boolean>;
}

export interface InspectorRun {
  /** The CLI's exit status: 0 when the method answered, 1 when it failed (the reason is on stderr). */
  code: number;
  /** What it printed on stdout, parsed: the method's result. Null when it printed no JSON. */
  json: unknown;
  stderr: string;
}

/**
 * Runs `inspector-cli <url> --transport http --method …` once, as a person at a terminal would.
 * `signal` stops it as Ctrl-C would: the run then rejects.
 */
export function inspect(url: string, request: InspectorRequest, signal?: AbortSignal): Promise<InspectorRun> {
  const args = [ENTRY, url, '--transport', 'http', '--method', request.method];
  if (request.toolName) args.push('--tool-name', request.toolName);
  const pairs = Object.entries(request.toolArgs ?? {}).map(([k, v]) => `${k}=${v}`);
  if (pairs.length > 0) args.push('--tool-arg', ...pairs);
  const headers = {
    ...(request.token ? { Authorization: `Bearer ${request.token}` } : {}),
    ...request.headers,
  };
  const headerPairs = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  if (headerPairs.length > 0) args.push('--header', ...headerPairs);
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      args,
      { cwd: dirname(ENTRY), timeout: 90_000, maxBuffer: 16 * 1024 * 1024, signal },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number')
          return fail(new Error(`inspector-cli did not finish: ${error.message}\n${stderr}`));
        let json: unknown = null;
        try {
          json = JSON.parse(stdout);
        } catch {}
        done({ code: typeof error?.code === 'number' ? error.code : 0, json, stderr });
      },
    );
  });
}
