import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.js';
import { CredentialKeyRing } from '../../src/bridge/mcp/index.js';
import { DEFAULT_WORKSPACE_CONFIG } from '../../src/features/workspace/rules/config.js';

const KEYS = `k2:${Buffer.alloc(32, 2).toString('base64')},k1:${Buffer.alloc(32, 1).toString('base64')}`;

describe('loadConfig', () => {
  it('has working defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      dataDir: resolve('./.data'),
      databaseUrl: undefined,
      adminToken: undefined,
      logLevel: 'info',
      tokenCheckMs: 2_000,
      journalSafetyPollMs: 5_000,
      toolTimeoutMs: 60_000,
      leaseMs: 30_000,
      approvalExpiryWarningMs: 60_000,
      workspace: DEFAULT_WORKSPACE_CONFIG,
      limits: { requestsPerMinute: 1200, burst: 100, subscriptionsPerToken: 50 },
      maxBodyBytes: 1_048_576,
      allowedOrigins: [],
      metrics: { token: undefined, port: undefined },
      tracing: null,
      drainTimeoutMs: 10_000,
      mcpApprovalHoldMs: 45_000,
      identity: null,
      consoleSignIn: null,
      credentials: { keys: CredentialKeyRing.parse(undefined), exchange: null },
    });
  });

  it('OIDC_ISSUER with OIDC_AUDIENCE turns IdP tokens on, with the claim mapping from OIDC_CLAIMS_FILE', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'claims-')), 'claims.json');
    writeFileSync(
      file,
      JSON.stringify({ groupsClaim: 'roles', roles: [{ group: 'ats', role: 'APPROVER', allUsers: true }] }),
    );
    const { identity } = loadConfig({
      OIDC_ISSUER: 'https://idp.example/realms/ats',
      OIDC_AUDIENCE: 'ats-api, https://ats.example/mcp',
      OIDC_ALGORITHMS: 'RS256,ES256',
      OIDC_CLAIMS_FILE: file,
    });
    expect(identity).toMatchObject({
      issuer: 'https://idp.example/realms/ats',
      audience: ['ats-api', 'https://ats.example/mcp'],
      algorithms: ['RS256', 'ES256'],
      claims: {
        groupsClaim: 'roles',
        userClaim: 'sub',
        roles: [{ group: 'ats', role: 'APPROVER', allUsers: true }],
      },
      jwksCooldownMs: 30_000,
    });
  });

  it.each([
    [{ OIDC_ISSUER: 'https://idp.example' }, 'OIDC_AUDIENCE: required when OIDC_ISSUER is set'],
    [{ OIDC_AUDIENCE: 'ats' }, 'OIDC_ISSUER: required when OIDC_AUDIENCE or OIDC_CLAIMS_FILE is set'],
    [
      { OIDC_ISSUER: 'https://idp.example', OIDC_AUDIENCE: 'ats', OIDC_ALGORITHMS: 'RS256,HS256' },
      'HS256 is not allowed: only public-key algorithms',
    ],
  ])('refuses an incomplete or unsafe OIDC configuration: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@h/db',
      ADMIN_TOKEN: 'a-long-enough-secret',
      LOG_LEVEL: 'debug',
      RATE_LIMIT_PER_MINUTE: '600',
      RATE_LIMIT_BURST: '20',
      MAX_SUBSCRIPTIONS_PER_TOKEN: '5',
      ALLOWED_ORIGINS: 'https://dash.example,http://localhost:5173',
      APPROVAL_EXPIRY_WARNING_MS: '5000',
      LINK_SECRET: 'a-link-signing-secret-of-32-chars!',
      MCP_APPROVAL_HOLD_MS: '20000',
      PUBLIC_URL: 'https://tools.example',
      JOURNAL_SAFETY_POLL_MS: '250',
      CREDENTIALS_KEY: KEYS,
      TOKEN_EXCHANGE_ENDPOINT: 'https://idp.example/token',
      TOKEN_EXCHANGE_CLIENT_ID: 'ats-gateway',
      TOKEN_EXCHANGE_CLIENT_SECRET: 'exchange-secret',
    });
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u@h/db',
      adminToken: 'a-long-enough-secret',
      logLevel: 'debug',
      tokenCheckMs: 2_000,
      journalSafetyPollMs: 250,
      toolTimeoutMs: 60_000,
      leaseMs: 30_000,
      approvalExpiryWarningMs: 5_000,
      workspace: DEFAULT_WORKSPACE_CONFIG,
      limits: { requestsPerMinute: 600, burst: 20, subscriptionsPerToken: 5 },
      maxBodyBytes: 1_048_576,
      allowedOrigins: ['https://dash.example', 'http://localhost:5173'],
      metrics: { token: undefined, port: undefined },
      tracing: null,
      drainTimeoutMs: 10_000,
      linkSecret: 'a-link-signing-secret-of-32-chars!',
      mcpApprovalHoldMs: 20_000,
      publicUrl: 'https://tools.example',
      identity: null,
      consoleSignIn: null,
      credentials: {
        keys: CredentialKeyRing.parse(KEYS),
        exchange: {
          issuer: null,
          tokenEndpoint: 'https://idp.example/token',
          clientId: 'ats-gateway',
          clientSecret: 'exchange-secret',
        },
      },
    });
    expect(config.credentials.keys.currentId).toBe('k2');
  });

  it('refuses a CREDENTIALS_KEY entry that is not a 32-byte key, naming the variable and the key id only', () => {
    expect(() => loadConfig({ CREDENTIALS_KEY: 'k1:c2hvcnQ=' })).toThrow(
      'Invalid configuration:\n  CREDENTIALS_KEY: key k1 must be 32 bytes in base64 (openssl rand -base64 32), not 5',
    );
  });

  it('refuses a PUBLIC_URL that is not an http(s) URL, naming it', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://tools.example' })).toThrow(/PUBLIC_URL: must be an http/);
    expect(() => loadConfig({ MCP_APPROVAL_HOLD_MS: '-1' })).toThrow(/MCP_APPROVAL_HOLD_MS/);
  });

  it('refuses a LINK_SECRET shorter than 32 characters, naming it', () => {
    expect(() => loadConfig({ LINK_SECRET: 'short' })).toThrow(/LINK_SECRET: must be at least 32 characters/);
  });

  it('treats empty optional variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', ADMIN_TOKEN: '' })).toMatchObject({
      databaseUrl: undefined,
      adminToken: undefined,
    });
  });

  it('turns the request and subscription limits off with 0', () => {
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0', MAX_SUBSCRIPTIONS_PER_TOKEN: '0' }).limits).toEqual({
      requestsPerMinute: 0,
      burst: 100,
      subscriptionsPerToken: 0,
    });
  });

  it('turns the approval expiry warning off with APPROVAL_EXPIRY_WARNING_MS=0', () => {
    expect(loadConfig({ APPROVAL_EXPIRY_WARNING_MS: '0' }).approvalExpiryWarningMs).toBe(0);
  });

  it('reads ALLOWED_ORIGINS with spaces around the commas and no empty entries', () => {
    expect(
      loadConfig({ ALLOWED_ORIGINS: ' https://a.example , ,https://b.example:8443 ' }).allowedOrigins,
    ).toEqual(['https://a.example', 'https://b.example:8443']);
  });

  it.each([
    ['PORT', { PORT: 'eighty' }, /PORT: /],
    ['PORT range', { PORT: '70000' }, /PORT: /],
    [
      'DATABASE_URL',
      { DATABASE_URL: 'mysql://x' },
      /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
    ],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN: must be at least 16 characters/],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }, /LOG_LEVEL: /],
    ['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: '-1' }, /RATE_LIMIT_PER_MINUTE: /],
    ['RATE_LIMIT_BURST', { RATE_LIMIT_BURST: '0' }, /RATE_LIMIT_BURST: /],
    ['MAX_SUBSCRIPTIONS_PER_TOKEN', { MAX_SUBSCRIPTIONS_PER_TOKEN: 'many' }, /MAX_SUBSCRIPTIONS_PER_TOKEN: /],
    [
      'ALLOWED_ORIGINS with a path',
      { ALLOWED_ORIGINS: 'https://a.example/app' },
      /ALLOWED_ORIGINS.0: https:\/\/a.example\/app is not an origin/,
    ],
    ['ALLOWED_ORIGINS wildcard', { ALLOWED_ORIGINS: '*' }, /ALLOWED_ORIGINS.0: \* is not an origin/],
    [
      'APPROVAL_EXPIRY_WARNING_MS negative',
      { APPROVAL_EXPIRY_WARNING_MS: '-1' },
      /APPROVAL_EXPIRY_WARNING_MS: /,
    ],
    [
      'APPROVAL_EXPIRY_WARNING_MS not a number',
      { APPROVAL_EXPIRY_WARNING_MS: 'soon' },
      /APPROVAL_EXPIRY_WARNING_MS: /,
    ],
  ])('names the bad variable: %s', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('WORKSPACE_CONFIG', () => {
  const file = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'ats-config-')), 'workspace.json');
    writeFileSync(path, content);
    return path;
  };

  it('reads per-profile narrowing and finish requirements from the file', () => {
    const path = file(
      JSON.stringify({
        profiles: { writer: { writable: ['output/chapters/'], requiredArtifacts: ['output/chapters/'] } },
      }),
    );
    const { workspace } = loadConfig({ WORKSPACE_CONFIG: path });
    expect(workspace.profiles).toEqual({
      writer: { writable: ['output/chapters'], requiredArtifacts: ['output/chapters/'] },
    });
    expect(workspace.defaultRoots).toEqual(DEFAULT_WORKSPACE_CONFIG.defaultRoots);
  });

  it('names the file and the bad field', () => {
    const path = file(JSON.stringify({ profiles: { writer: { writable: ['../etc'] } } }));
    expect(() => loadConfig({ WORKSPACE_CONFIG: path })).toThrow(
      /WORKSPACE_CONFIG \(.*workspace\.json\): profiles\.writer\.writable\.0: workspace folder/,
    );
  });

  it('refuses a file that is not JSON', () => {
    expect(() => loadConfig({ WORKSPACE_CONFIG: file('{nope') })).toThrow(ConfigError);
  });
});

describe('OIDC_CONSOLE_*', () => {
  const issuer = 'https://idp.example/realms/agents';

  it('without a client id the console signs in with pasted tokens only', () => {
    expect(loadConfig({}).consoleSignIn).toBeNull();
  });

  it('a client id turns sign-in with the IdP of OIDC_ISSUER on, with defaults', () => {
    const config = loadConfig({
      OIDC_ISSUER: issuer,
      OIDC_AUDIENCE: 'ats',
      OIDC_CONSOLE_CLIENT_ID: 'console',
    });
    expect(config.consoleSignIn).toEqual({
      issuer,
      clientId: 'console',
      scope: 'openid profile email',
      resource: null,
      token: 'access_token',
    });
  });

  it('reads the scope, resource and token kind', () => {
    const config = loadConfig({
      OIDC_ISSUER: issuer,
      OIDC_AUDIENCE: 'ats',
      OIDC_CONSOLE_CLIENT_ID: 'console',
      OIDC_CONSOLE_SCOPE: 'openid email api://ats/approve',
      OIDC_CONSOLE_RESOURCE: 'https://ats.example/',
      OIDC_CONSOLE_TOKEN: 'id_token',
    });
    expect(config.consoleSignIn).toMatchObject({
      scope: 'openid email api://ats/approve',
      resource: 'https://ats.example/',
      token: 'id_token',
    });
  });

  it.each([
    [
      'a client id without an issuer',
      { OIDC_CONSOLE_CLIENT_ID: 'console' },
      /OIDC_ISSUER: required when OIDC_CONSOLE_CLIENT_ID is set/,
    ],
    ['a scope without openid', { OIDC_CONSOLE_SCOPE: 'email' }, /OIDC_CONSOLE_SCOPE: must include openid/],
    ['another token kind', { OIDC_CONSOLE_TOKEN: 'refresh_token' }, /OIDC_CONSOLE_TOKEN: /],
  ])('names the bad variable: %s', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
