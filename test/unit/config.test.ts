import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      dataDir: resolve('./.data'),
      databaseUrl: undefined,
      adminToken: undefined,
      logLevel: 'info',
      toolTimeoutMs: 60_000,
      leaseMs: 30_000,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@h/db',
      ADMIN_TOKEN: 'a-long-enough-secret',
      LOG_LEVEL: 'debug',
    });
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u@h/db',
      adminToken: 'a-long-enough-secret',
      logLevel: 'debug',
      toolTimeoutMs: 60_000,
      leaseMs: 30_000,
    });
  });

  it('treats empty optional variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', ADMIN_TOKEN: '' })).toMatchObject({
      databaseUrl: undefined,
      adminToken: undefined,
    });
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
  ])('names the bad variable: %s', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
