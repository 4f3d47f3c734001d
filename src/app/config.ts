import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { CredentialKeyRing, type CredentialSettings } from '../bridge/mcp/index.js';
import type { ConsoleSignIn } from '../features/console/index.js';
import {
  claimMappingSchema,
  DEFAULT_ALGORITHMS,
  DEFAULT_CLAIM_MAPPING,
  DEFAULT_JWKS_COOLDOWN_MS,
  type IdentitySettings,
} from '../features/identity/index.js';
import {
  DEFAULT_WORKSPACE_CONFIG,
  type WorkspaceConfig,
  workspaceConfigFrom,
} from '../features/workspace/index.js';
import type { TransportLimits } from '../graphql/rate-limits.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  ADMIN_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  TOKEN_CHECK_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  JOURNAL_SAFETY_POLL_MS: z.coerce.number().int().min(100).default(5_000),
  TOOL_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  LEASE_MS: z.coerce.number().int().min(100).default(30_000),
  APPROVAL_EXPIRY_WARNING_MS: z.coerce.number().int().min(0).default(60_000),
  WORKSPACE_CONFIG: z.string().min(1).optional(),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024, 'must be at least 1024 bytes')
    .max(256 * 1024 * 1024, 'must be at most 268435456 bytes (256 MiB)')
    .default(1024 * 1024),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(100),
  MAX_SUBSCRIPTIONS_PER_TOKEN: z.coerce.number().int().min(0).default(50),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  TRACING: z
    .enum(['off', 'otlp'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OTEL_SERVICE_NAME: z.string().min(1).default('agent-tool-system'),
  DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  LINK_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  MCP_APPROVAL_HOLD_MS: z.coerce.number().int().min(0).max(600_000).default(45_000),
  CREDENTIALS_KEY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return CredentialKeyRing.parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  TOKEN_EXCHANGE_ENDPOINT: z
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  TOKEN_EXCHANGE_CLIENT_ID: z
    .string()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  TOKEN_EXCHANGE_CLIENT_SECRET: z
    .string()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PUBLIC_URL: z
    .url()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OIDC_ISSUER: z
    .url()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OIDC_AUDIENCE: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    ),
  OIDC_ALGORITHMS: z
    .string()
    .default(DEFAULT_ALGORITHMS.join(','))
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    )
    .pipe(
      z
        .array(
          z.string().refine((alg) => DEFAULT_ALGORITHMS.includes(alg), {
            error: (issue) =>
              `${String(issue.input)} is not allowed: only public-key algorithms (${DEFAULT_ALGORITHMS.join(', ')}); never none or HMAC`,
          }),
        )
        .min(1),
    ),
  OIDC_CLAIMS_FILE: z.string().min(1).optional(),
  OIDC_CONSOLE_CLIENT_ID: z
    .string()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OIDC_CONSOLE_SCOPE: z
    .string()
    .default('openid profile email')
    .refine((scope) => scope.split(' ').includes('openid'), 'must include openid'),
  OIDC_CONSOLE_RESOURCE: z
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OIDC_CONSOLE_TOKEN: z.enum(['access_token', 'id_token']).default('access_token'),
  OIDC_JWKS_COOLDOWN_MS: z.coerce.number().int().min(0).default(DEFAULT_JWKS_COOLDOWN_MS),
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ''),
    )
    .pipe(
      z.array(
        z.string().refine(isOrigin, {
          error: (issue) =>
            `${String(issue.input)} is not an origin: write scheme://host[:port], with no path or trailing slash`,
        }),
      ),
    ),
});

/** Exactly what a browser sends as Origin: `https://dash.example` or `http://localhost:5173`; `*` is no origin. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  logLevel: (typeof logLevels)[number];
  /** How often each process re-checks the tokens of its open subscriptions (revoked, expired, rotated out). */
  tokenCheckMs: number;
  /** How often each process reads the journal without a wake-up, for one a killed writer never sent. */
  journalSafetyPollMs: number;
  /** Timeout of a tool call whose tool and policy set none. */
  toolTimeoutMs: number;
  /** How long a dispatch claim lasts without renewal; a dead process's calls are recovered after it. */
  leaseMs: number;
  /** How long before a pending call expires its `tool_call_expiring` event fires; 0: never. */
  approvalExpiryWarningMs: number;
  /** Workspace roots and per-profile narrowing, from the WORKSPACE_CONFIG JSON file. */
  workspace: WorkspaceConfig;
  /** Per token, per process: request rate and open subscriptions. */
  limits: TransportLimits;
  /** The largest HTTP request body (and graphql-ws message) accepted; larger is 413. */
  maxBodyBytes: number;
  /** Origins whose pages may call the API (CORS, WebSocket upgrades); empty = same origin only. */
  allowedOrigins: string[];
  /** /metrics: on the API port for ADMIN tokens and `token`, or alone on `port` (open unless `token` is set). */
  metrics: { token: string | undefined; port: number | undefined };
  /** OTLP/HTTP trace export; null (the default) loads no tracing code at all. */
  tracing: { endpoint: string; serviceName: string } | null;
  /** At SIGTERM, how long running calls may take to finish before their leases are released. */
  drainTimeoutMs: number;
  /** Signs one-time approval links; unset: a key generated once and kept in the database. */
  linkSecret: string | undefined;
  /** How long the MCP gateway holds a tools/call for a person's decision before the pending answer. */
  mcpApprovalHoldMs: number;
  /** Per-user upstream credentials: the keys they are encrypted with, and this server's token-exchange client. */
  credentials: CredentialSettings;
  /** The server's public base URL (links, MCP resource metadata); unset: taken from each request's Host. */
  publicUrl: string | undefined;
  /** OIDC_*: IdP tokens accepted beside API tokens; null (no OIDC_ISSUER): API tokens only. */
  identity: IdentitySettings | null;
  /** OIDC_CONSOLE_*: the console's sign-in with the IdP; null (no OIDC_CONSOLE_CLIENT_ID): pasted tokens only. */
  consoleSignIn: ConsoleSignIn | null;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function readWorkspaceConfig(path: string): WorkspaceConfig {
  try {
    return workspaceConfigFrom(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    const detail =
      error instanceof z.ZodError
        ? error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')
        : (error as Error).message;
    throw new ConfigError(`Invalid configuration:\n  WORKSPACE_CONFIG (${path}): ${detail}`);
  }
}

function readClaimMapping(path: string) {
  try {
    return claimMappingSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    const detail =
      error instanceof z.ZodError
        ? error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')
        : (error as Error).message;
    throw new ConfigError(`Invalid configuration:\n  OIDC_CLAIMS_FILE (${path}): ${detail}`);
  }
}

/** OIDC_ISSUER turns IdP tokens on, and then an audience is required: a token for any audience would do otherwise. */
function identityFrom(c: z.output<typeof configSchema>): IdentitySettings | null {
  if (!c.OIDC_ISSUER) {
    if (c.OIDC_AUDIENCE.length > 0 || c.OIDC_CLAIMS_FILE)
      throw new ConfigError(
        'Invalid configuration:\n  OIDC_ISSUER: required when OIDC_AUDIENCE or OIDC_CLAIMS_FILE is set',
      );
    return null;
  }
  if (c.OIDC_AUDIENCE.length === 0)
    throw new ConfigError('Invalid configuration:\n  OIDC_AUDIENCE: required when OIDC_ISSUER is set');
  return {
    issuer: c.OIDC_ISSUER,
    audience: c.OIDC_AUDIENCE,
    algorithms: c.OIDC_ALGORITHMS,
    claims: c.OIDC_CLAIMS_FILE ? readClaimMapping(c.OIDC_CLAIMS_FILE) : DEFAULT_CLAIM_MAPPING,
    jwksCooldownMs: c.OIDC_JWKS_COOLDOWN_MS,
  };
}

/** The console signs in with the IdP whose tokens the server accepts, so OIDC_ISSUER must be set too. */
function consoleSignInFrom(c: z.output<typeof configSchema>): ConsoleSignIn | null {
  if (!c.OIDC_CONSOLE_CLIENT_ID) return null;
  if (!c.OIDC_ISSUER)
    throw new ConfigError(
      'Invalid configuration:\n  OIDC_ISSUER: required when OIDC_CONSOLE_CLIENT_ID is set',
    );
  return {
    issuer: c.OIDC_ISSUER,
    clientId: c.OIDC_CONSOLE_CLIENT_ID,
    scope: c.OIDC_CONSOLE_SCOPE,
    resource: c.OIDC_CONSOLE_RESOURCE ?? null,
    token: c.OIDC_CONSOLE_TOKEN,
  };
}

/** An endpoint turns tracing on unless TRACING=off; TRACING=otlp alone sends to the collector's default port. */
function tracingFrom(mode: 'off' | 'otlp' | undefined, endpoint: string | undefined, serviceName: string) {
  if (mode === 'off' || (mode === undefined && endpoint === undefined)) return null;
  return { endpoint: endpoint ?? 'http://localhost:4318', serviceName };
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    port: c.PORT,
    host: c.HOST,
    dataDir: resolve(c.DATA_DIR),
    databaseUrl: c.DATABASE_URL,
    adminToken: c.ADMIN_TOKEN,
    logLevel: c.LOG_LEVEL,
    tokenCheckMs: c.TOKEN_CHECK_INTERVAL_MS,
    journalSafetyPollMs: c.JOURNAL_SAFETY_POLL_MS,
    toolTimeoutMs: c.TOOL_TIMEOUT_MS,
    leaseMs: c.LEASE_MS,
    approvalExpiryWarningMs: c.APPROVAL_EXPIRY_WARNING_MS,
    workspace: c.WORKSPACE_CONFIG ? readWorkspaceConfig(c.WORKSPACE_CONFIG) : DEFAULT_WORKSPACE_CONFIG,
    limits: {
      requestsPerMinute: c.RATE_LIMIT_PER_MINUTE,
      burst: c.RATE_LIMIT_BURST,
      subscriptionsPerToken: c.MAX_SUBSCRIPTIONS_PER_TOKEN,
    },
    maxBodyBytes: c.MAX_BODY_BYTES,
    allowedOrigins: c.ALLOWED_ORIGINS,
    metrics: { token: c.METRICS_TOKEN, port: c.METRICS_PORT },
    tracing: tracingFrom(c.TRACING, c.OTEL_EXPORTER_OTLP_ENDPOINT, c.OTEL_SERVICE_NAME),
    drainTimeoutMs: c.DRAIN_TIMEOUT_MS,
    linkSecret: c.LINK_SECRET,
    mcpApprovalHoldMs: c.MCP_APPROVAL_HOLD_MS,
    publicUrl: c.PUBLIC_URL,
    identity: identityFrom(c),
    consoleSignIn: consoleSignInFrom(c),
    credentials: {
      keys: c.CREDENTIALS_KEY,
      exchange: c.TOKEN_EXCHANGE_CLIENT_ID
        ? {
            issuer: c.OIDC_ISSUER ?? null,
            tokenEndpoint: c.TOKEN_EXCHANGE_ENDPOINT ?? null,
            clientId: c.TOKEN_EXCHANGE_CLIENT_ID,
            clientSecret: c.TOKEN_EXCHANGE_CLIENT_SECRET ?? '',
          }
        : null,
    },
  };
}
