import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { modelConnectionCommands } from '../../../src/features/models/cli.js';
import { runCommand } from '../../support/cli.js';
import { dbTest as test } from '../../support/fixtures.js';

const SET = `mutation Set($input: SetModelConnectionInput!) {
  setModelConnection(input: $input) {
    name wireFormat baseUrl model timeoutMs hasApiKey headerNames
    sampling { temperature topP topK maxOutputTokens stopSequences presencePenalty frequencyPenalty seed }
  }
}`;

const KEY = 'sk-test-SECRET-0123456789abcdef';
const HEADER_VALUE = 'proxy-SECRET-value';

const local = {
  name: 'local',
  wireFormat: 'OPENAI_CHAT',
  baseUrl: 'http://127.0.0.1:8080/v1/',
  model: 'qwen3-8b',
  sampling: { temperature: 0.2, topK: 40, maxOutputTokens: 1024 },
  timeoutMs: 30_000,
  apiKey: KEY,
  headers: [{ name: 'X-Proxy-Auth', value: HEADER_VALUE }],
};

const cli = (services: Services, words: string[], values: Record<string, string | boolean | string[]> = {}) =>
  runCommand(modelConnectionCommands, services, words, values);

describe('model connections', () => {
  test('an admin sets a connection and reads it back with the key shown as hasApiKey and the headers by name', async ({
    gql,
  }) => {
    const set = await gql(SET, { input: local });
    expect(set.errors).toBeUndefined();
    const expected = {
      name: 'local',
      wireFormat: 'OPENAI_CHAT',
      baseUrl: 'http://127.0.0.1:8080/v1',
      model: 'qwen3-8b',
      timeoutMs: 30_000,
      hasApiKey: true,
      headerNames: ['X-Proxy-Auth'],
      sampling: {
        temperature: 0.2,
        topP: null,
        topK: 40,
        maxOutputTokens: 1024,
        stopSequences: null,
        presencePenalty: null,
        frequencyPenalty: null,
        seed: null,
      },
    };
    expect(set.data!.setModelConnection).toEqual(expected);
    const read = await gql(`{
      modelConnection(name: "local") { name hasApiKey headerNames }
      modelConnections { name wireFormat }
    }`);
    expect(read.data).toEqual({
      modelConnection: { name: 'local', hasApiKey: true, headerNames: ['X-Proxy-Auth'] },
      modelConnections: [{ name: 'local', wireFormat: 'OPENAI_CHAT' }],
    });
    expect(JSON.stringify([set, read])).not.toMatch(/SECRET/);
  });

  test('setting a connection again without its secrets keeps them; apiKey null and headers [] remove them', async ({
    gql,
    services,
  }) => {
    await gql(SET, { input: local });
    const { apiKey: _k, headers: _h, ...withoutSecrets } = local;
    const kept = await gql(SET, { input: { ...withoutSecrets, model: 'qwen3-14b' } });
    expect(kept.data!.setModelConnection).toMatchObject({
      model: 'qwen3-14b',
      hasApiKey: true,
      headerNames: ['X-Proxy-Auth'],
    });
    expect(await services.modelConnections.require('local')).toMatchObject({
      apiKey: KEY,
      headers: { 'X-Proxy-Auth': HEADER_VALUE },
    });
    const cleared = await gql(SET, { input: { ...withoutSecrets, apiKey: null, headers: [] } });
    expect(cleared.data!.setModelConnection).toMatchObject({ hasApiKey: false, headerNames: [] });
  });

  test('the journal records each change with names only, never a key or header value', async ({
    gql,
    services,
  }) => {
    await gql(SET, { input: local });
    await gql('mutation { removeModelConnection(name: "local") }');
    const events = (await services.journal.read({ limit: 10 })).filter(
      (e) => e.type === 'model_connection_changed',
    );
    expect(events.map((e) => [e.actor, e.payload])).toEqual([
      [
        'admin:test-admin',
        {
          name: 'local',
          action: 'added',
          wireFormat: 'OPENAI_CHAT',
          baseUrl: 'http://127.0.0.1:8080/v1',
          model: 'qwen3-8b',
          sampling: { temperature: 0.2, topK: 40, maxOutputTokens: 1024 },
          timeoutMs: 30_000,
          hasApiKey: true,
          headerNames: ['X-Proxy-Auth'],
        },
      ],
      [
        'admin:test-admin',
        expect.objectContaining({
          name: 'local',
          action: 'removed',
          hasApiKey: true,
          headerNames: ['X-Proxy-Auth'],
        }),
      ],
    ]);
    expect(JSON.stringify(events.map((e) => e.payload))).not.toMatch(/SECRET/);
  });

  test('bad settings are BAD_USER_INPUT naming the field', async ({ gql }) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { ...local, name: 'Local.1' },
        'input.name: must be 1-32 characters of a-z 0-9 _ -, starting with a letter',
      ],
      [
        { ...local, baseUrl: 'file:///etc/passwd' },
        'input.baseUrl: must be an http:// or https:// URL without a query or fragment',
      ],
      [
        { ...local, sampling: { temperature: 3 } },
        'input.sampling.temperature: Too big: expected number to be <=2',
      ],
      [
        { ...local, wireFormat: 'OPENAI_RESPONSES', sampling: { seed: 1 } },
        'input.sampling.seed: OPENAI_RESPONSES has no such setting',
      ],
      [{ ...local, timeoutMs: 10 }, 'input.timeoutMs: Too small: expected number to be >=1000'],
      [
        { ...local, headers: [{ name: 'Content-Type', value: 'text/plain' }] },
        'input.headers.0.name: is set by the server itself',
      ],
      [{ ...local, apiKey: 'a\r\nb' }, 'input.apiKey: must not contain line breaks or NUL'],
    ];
    for (const [input, message] of cases) {
      const res = await gql(SET, { input });
      expect(res.errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT' } });
    }
  });

  test('removing a connection that does not exist is NOT_FOUND; reading it is null', async ({ gql }) => {
    const removed = await gql('mutation { removeModelConnection(name: "nope") }');
    expect(removed.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await gql('{ modelConnection(name: "nope") { name } }')).data).toEqual({ modelConnection: null });
  });

  test('the CLI sets, lists and removes a connection, reading the key from an environment variable and printing no secret', async ({
    services,
  }) => {
    process.env.MODEL_TEST_KEY = KEY;
    try {
      const set = await cli(services, ['model-connection', 'set', 'claude'], {
        format: 'anthropic',
        model: 'claude-sonnet-4-5',
        'api-key-env': 'MODEL_TEST_KEY',
        header: [`anthropic-beta=${HEADER_VALUE}`],
        temperature: '0.5',
        stop: ['END'],
      });
      expect(set).toEqual({
        code: 0,
        out: [
          'set claude  anthropic  claude-sonnet-4-5  https://api.anthropic.com/v1  timeout 120000ms  api key set  temperature=0.5 stopSequences=END  headers: anthropic-beta',
        ],
        err: [],
      });
      expect((await services.modelConnections.require('claude')).apiKey).toBe(KEY);
      const list = await cli(services, ['model-connection', 'list']);
      expect(list.out).toEqual([set.out[0]!.slice('set '.length)]);
      expect(await cli(services, ['model-connection', 'remove', 'claude'])).toEqual({
        code: 0,
        out: ['removed claude'],
        err: [],
      });
      expect(await services.modelConnections.list()).toEqual([]);
      const events = await services.journal.read({ limit: 10 });
      expect(events.filter((e) => e.type === 'model_connection_changed').map((e) => e.actor)).toEqual([
        'cli:model-connection',
        'cli:model-connection',
      ]);
      expect(JSON.stringify([set, list, events.map((e) => e.payload)])).not.toMatch(/SECRET/);
    } finally {
      delete process.env.MODEL_TEST_KEY;
    }
  });
});
