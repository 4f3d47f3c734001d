import { z } from 'zod';
import { LONE_SURROGATE } from '../../../core/unicode.js';
import {
  HEADER_NAME,
  type UserCredentialConfig,
  userCredentialInputSchema,
  userCredentialProblem,
} from './user-credential.js';

/**
 * MCP server configuration as an admin enters it. The name becomes part of every tool name
 * (`mcp.<name>.<tool>`), so it is a plain identifier with no dots: the owner of a tool is always
 * the second segment of its name.
 */
const MCP_SERVER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export const mcpTransports = ['STDIO', 'STREAMABLE_HTTP'] as const;
export type McpTransport = (typeof mcpTransports)[number];

export const connectionStates = ['CONNECTING', 'CONNECTED', 'DISCONNECTED', 'DISABLED', 'FAILED'] as const;
export type ConnectionState = (typeof connectionStates)[number];

const mcpServerNameSchema = z
  .string()
  .regex(MCP_SERVER_NAME_PATTERN, 'must be 1-32 characters of a-z 0-9 _ -, starting with a letter');

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const namedValues = (pattern: RegExp, what: string, valueCheck: z.ZodString) =>
  z
    .array(
      z.object({
        name: z.string().regex(pattern, `must be a valid ${what} name`),
        // A lone surrogate cannot be stored as JSON in Postgres; refused here, the value (a secret,
        // perhaps) never reaches a failed query whose message would carry it into a log.
        value: valueCheck.refine((v) => !LONE_SURROGATE.test(v), 'must be well-formed Unicode'),
      }),
    )
    .max(64)
    .superRefine((pairs, ctx) => {
      const seen = new Set<string>();
      for (const [i, pair] of pairs.entries()) {
        const key = what === 'header' ? pair.name.toLowerCase() : pair.name;
        if (seen.has(key))
          ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${pair.name} is given twice` });
        seen.add(key);
      }
    });

const envSchema = namedValues(
  ENV_NAME,
  'environment variable',
  z
    .string()
    .max(8192)
    .refine((v) => !v.includes('\0'), 'must not contain NUL'),
);
const headersSchema = namedValues(
  HEADER_NAME,
  'header',
  z
    .string()
    .max(8192)
    .refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks or NUL'),
);

const commandSchema = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .refine((v) => !v.includes('\0'), 'must not contain NUL');
const argsSchema = z
  .array(
    z
      .string()
      .max(4096)
      .refine((v) => !v.includes('\0'), 'must not contain NUL'),
  )
  .max(256);
const urlSchema = z
  .string()
  .max(4096)
  .refine((v) => {
    try {
      const url = new URL(v);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL');

const fields = {
  command: commandSchema.nullish(),
  args: argsSchema.nullish(),
  env: envSchema.nullish(),
  cwd: z.string().trim().min(1).max(4096).nullish(),
  url: urlSchema.nullish(),
  headers: headersSchema.nullish(),
  /** Null (on update) stops sending a per-user credential. */
  userCredential: userCredentialInputSchema.nullish(),
};

/** A STDIO server needs a command and no URL; a STREAMABLE_HTTP one a URL and no command. */
function checkTransport(
  config: { transport?: McpTransport | null | undefined } & { [K in keyof typeof fields]?: unknown },
  ctx: z.RefinementCtx,
) {
  const stdioOnly = ['command', 'args', 'env', 'cwd'] as const;
  const httpOnly = ['url', 'headers', 'userCredential'] as const;
  if (config.transport === 'STDIO') {
    if (!config.command)
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'is required for STDIO' });
    for (const f of httpOnly)
      if (config[f] != null)
        ctx.addIssue({ code: 'custom', path: [f], message: 'is only for STREAMABLE_HTTP' });
  }
  if (config.transport === 'STREAMABLE_HTTP') {
    if (!config.url)
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'is required for STREAMABLE_HTTP' });
    for (const f of stdioOnly)
      if (config[f] != null) ctx.addIssue({ code: 'custom', path: [f], message: 'is only for STDIO' });
  }
}

export const addMcpServerInputSchema = z
  .object({
    name: mcpServerNameSchema,
    transport: z.enum(mcpTransports),
    ...fields,
    enabled: z.boolean().nullish(),
  })
  .superRefine(checkTransport);
export type AddMcpServerInput = z.input<typeof addMcpServerInputSchema>;

/** Each field given replaces the stored one (env and headers as a whole: their values are never shown). */
export const updateMcpServerInputSchema = z
  .object({ transport: z.enum(mcpTransports).nullish(), ...fields })
  .superRefine(checkTransport);
export type UpdateMcpServerInput = z.input<typeof updateMcpServerInputSchema>;

export interface McpServerConfig {
  name: string;
  transport: McpTransport;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  url: string | null;
  headers: Record<string, string>;
  /** Null: every call goes with the admin's headers alone. */
  userCredential: UserCredentialConfig | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const recordOf = (pairs: ReadonlyArray<{ name: string; value: string }> | null | undefined) =>
  Object.fromEntries((pairs ?? []).map((p) => [p.name, p.value]));

/** The config after an update, checked as a whole (a transport switch must bring its own fields). */
export function applyMcpServerUpdate(
  current: McpServerConfig,
  update: z.output<typeof updateMcpServerInputSchema>,
): Omit<McpServerConfig, 'createdAt' | 'updatedAt'> {
  const transport = update.transport ?? current.transport;
  const switched = transport !== current.transport;
  const keep = <T>(given: T | null | undefined, old: T, empty: T): T =>
    given !== undefined && given !== null ? given : switched ? empty : old;
  return {
    name: current.name,
    transport,
    command: keep(update.command, current.command, null),
    args: keep(update.args, current.args, []),
    env: update.env != null ? recordOf(update.env) : switched ? {} : current.env,
    cwd: keep(update.cwd, current.cwd, null),
    url: keep(update.url, current.url, null),
    headers: update.headers != null ? recordOf(update.headers) : switched ? {} : current.headers,
    userCredential:
      update.userCredential !== undefined ? update.userCredential : switched ? null : current.userCredential,
    enabled: current.enabled,
  };
}

/** The whole config after an update must still fit its transport. */
export function mcpConfigProblem(config: Omit<McpServerConfig, 'createdAt' | 'updatedAt'>): string | null {
  if (config.transport === 'STDIO') {
    if (!config.command) return 'command: is required for STDIO';
    if (config.url !== null || Object.keys(config.headers).length > 0 || config.userCredential !== null)
      return 'url, headers and userCredential are only for STREAMABLE_HTTP (switch the transport to use them)';
  } else {
    if (!config.url) return 'url: is required for STREAMABLE_HTTP';
    if (config.command !== null || config.args.length > 0 || Object.keys(config.env).length > 0 || config.cwd)
      return 'command, args, env and cwd are only for STDIO (switch the transport to use them)';
  }
  return userCredentialProblem(config.transport, config.userCredential);
}
