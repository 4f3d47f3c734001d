import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import type { RunRow } from '../../../src/calls/tables.js';
import { countTokens } from '../../../src/core/tokens.js';
import { chatJsonl } from '../../support/chat.js';
import { dbTest } from '../../support/fixtures.js';
import { agent, allow, eventTypes, newRun, waitFor } from '../../support/lifecycle.js';
import { type Json, loopClient } from '../../support/model-loop.js';

const FRAME = `query($runId: ID!, $preset: ContextPresetInput, $presetName: String) {
  contextFrame(runId: $runId, preset: $preset, presetName: $presetName) {
    preset totalBudget totalTokens toolResultsVisible
    components { kind source tokenBudget priority required overflow content tokens originalTokens truncated applied }
    dropped { kind source tokens budget reason }
    toolResults { callId providerCallId name status form text isError truncated omitted }
  }
}`;
const RESULTS = `query($runId: ID!, $provider: Provider!, $callIds: [ID!]!) {
  toolResultMessages(runId: $runId, provider: $provider, callIds: $callIds)
}`;

const LORE = JSON.stringify({
  entries: {
    '0': {
      uid: 0,
      key: ['dragon'],
      comment: 'Dragons',
      content: 'Dragons of Eldoria sleep under the mountains.',
    },
    '1': { uid: 1, key: ['river'], comment: 'River', content: 'The Silver River never freezes.' },
  },
});

/** A run on chat c1 and workspace ws-ctx that may call every test tool. */
async function chatRun(
  services: Services,
  texts = ['Hello there.', 'Welcome, traveler.', 'Where are the dragons?'],
) {
  await allow(services);
  await services.chats.importChat(chatJsonl(texts), { id: 'c1', ownerUserId: 'u1', actor: 'test' });
  return newRun(services, { chatId: 'c1', workspaceId: 'ws-ctx' });
}

/**
 * `run`: a chat run (see chatRun); `loopRun`: a run the agent created over GraphQL, the test tools
 * allowed, with the agent's client for it.
 */
const test = dbTest.extend<{ run: RunRow; loopRun: { loop: ReturnType<typeof loopClient>; runId: string } }>({
  run: async ({ services }, use) => {
    await use(await chatRun(services));
  },
  loopRun: async ({ services, gql, tokens }, use) => {
    await allow(services);
    const loop = loopClient(gql, tokens);
    await use({ loop, runId: await loop.createRun({ profileId: 'p1', userId: 'u1' }) });
  },
});

describe('context frames', () => {
  test("the chat's character and its activated world info reach the model as SillyTavern sends them", async ({
    services,
    gql,
    run,
  }) => {
    // chatRun's chat: Traveler (user) and 沈念 (character), whose card is imported here.
    await services.characters.importCharacter(
      {
        json: JSON.stringify({
          spec: 'chara_card_v2',
          spec_version: '2.0',
          data: { name: '沈念', description: '{{char}} guards {{user}}.', scenario: 'A mountain pass.' },
        }),
      },
      'test',
    );
    const entry = (content: string, extra: Record<string, unknown> = {}) => ({
      key: ['{{char}}'],
      content,
      ...extra,
    });
    const book = await services.worldInfo.importLorebook(
      {
        json: JSON.stringify({
          entries: {
            '0': entry('<USER> walks with {{char}}.', { comment: 'Pass' }),
            '1': entry('{{user}} hears a roar.', { position: 4, depth: 1, role: 1 }),
          },
        }),
        fileName: 'pass.json',
      },
      'test',
    );
    await services.worldInfo.computeActivation(
      { chatId: 'c1', runId: run.id, lorebookIds: [book.id] },
      'test',
    );
    const res = await gql(FRAME, { runId: run.id, presetName: 'default' });
    expect(res.data!.contextFrame.components.map((c: Json) => [c.kind, c.content])).toEqual([
      ['CHARACTER', 'Character: 沈念\n沈念 guards Traveler.\nScenario: A mountain pass.'],
      ['WORLD_INFO', '[Pass]\nTraveler walks with 沈念.'],
      [
        'CHAT_HISTORY',
        'Traveler: Hello there.\n沈念: Welcome, traveler.\n[user] Traveler hears a roar.\nTraveler: Where are the dragons?',
      ],
      ['TOOL_RESULTS', ''],
    ]);
    // The stored entries keep the text as imported.
    expect((await services.worldInfo.entries(book.id)).map((e) => e.content)).toEqual([
      '<USER> walks with {{char}}.',
      '{{user}} hears a roar.',
    ]);
  });

  test('the default preset: world info, chat history and tool results in that order, counted in o200k tokens', async ({
    services,
    gql,
    run,
  }) => {
    const book = await services.worldInfo.importLorebook({ json: LORE, fileName: 'lore.json' }, 'test');
    const activation = await services.worldInfo.recordActivation(
      { runId: run.id, entries: [{ lorebookId: book.id, uid: 0 }] },
      'test',
    );
    const echo = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'hi' } },
      agent,
    );

    const res = await gql(FRAME, { runId: run.id, presetName: 'default' });
    expect(res.errors).toBeUndefined();
    const frame = res.data!.contextFrame;
    expect(frame.components.map((c: Json) => [c.kind, c.source])).toEqual([
      ['WORLD_INFO', `worldinfo:${activation.id}`],
      ['CHAT_HISTORY', 'chat:c1'],
      ['TOOL_RESULTS', `run:${run.id}`],
    ]);
    expect(frame.components[0].content).toBe('[Dragons]\nDragons of Eldoria sleep under the mountains.');
    expect(frame.components[1].content).toBe(
      'Traveler: Hello there.\n沈念: Welcome, traveler.\nTraveler: Where are the dragons?',
    );
    expect(frame.components[2].content).toBe(`[test.echo · call ${echo.id} · COMPLETED]\nhi`);
    for (const c of frame.components) {
      expect(c.tokens).toBe(countTokens(c.content));
      expect([c.truncated, c.applied]).toEqual([false, null]);
    }
    expect(frame.totalTokens).toBe(frame.components.reduce((n: number, c: Json) => n + c.tokens, 0));
    expect(frame.toolResults).toEqual([
      {
        callId: echo.id,
        providerCallId: null,
        name: 'test.echo',
        status: 'COMPLETED',
        form: 'RAW',
        text: 'hi',
        isError: false,
        truncated: false,
        omitted: false,
      },
    ]);
  });

  test('chat history over budget with TRUNCATE keeps the newest messages behind a marker', async ({
    services,
    gql,
  }) => {
    const texts = Array.from({ length: 40 }, (_, i) => `Message number ${i} about the long road north.`);
    const run = await chatRun(services, texts);
    const preset = { components: [{ kind: 'CHAT_HISTORY', tokenBudget: 60, overflow: 'TRUNCATE' }] };
    const frame = (await gql(FRAME, { runId: run.id, preset })).data!.contextFrame;
    const [chat] = frame.components;
    expect(chat.applied).toBe('TRUNCATE');
    expect(chat.tokens).toBeLessThanOrEqual(60);
    expect(chat.content).toMatch(/^\[… truncated \d+ tokens\]\n/);
    expect(chat.content.endsWith('Message number 39 about the long road north.')).toBe(true);
    const cut = Number(/truncated (\d+) tokens/.exec(chat.content)![1]);
    expect(cut).toBeGreaterThan(chat.originalTokens - 60);
  });

  test('SUMMARIZE keeps the head and the tail of a workspace file with the middle marked', async ({
    services,
    gql,
    run,
  }) => {
    const long = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const session = services.workspaces.admin.operatorSession('ws-ctx', 'test');
    await services.workspaces.sessions.write(session, {
      path: 'output/notes.md',
      content: long,
      mode: 'create',
    });
    await services.workspaces.sessions.write(session, {
      path: 'scratch/other.md',
      content: 'not chosen',
      mode: 'create',
    });
    const preset = {
      components: [{ kind: 'WORKSPACE_FILES', tokenBudget: 80, overflow: 'SUMMARIZE', paths: ['output/'] }],
    };
    const [files] = (await gql(FRAME, { runId: run.id, preset })).data!.contextFrame.components;
    expect(files.source).toBe('workspace:ws-ctx');
    expect(files.applied).toBe('SUMMARIZE');
    expect(files.tokens).toBeLessThanOrEqual(80);
    expect(files.content.startsWith('=== output/notes.md ===\nline 0\n')).toBe(true);
    expect(files.content).toMatch(/\n\[… \d+ tokens omitted …\]\n/);
    expect(files.content.endsWith('line 199')).toBe(true);
    expect(files.content).not.toContain('not chosen');
  });

  test('DROP leaves an optional component out and journals it', async ({ services, gql, run }) => {
    const preset = {
      name: 'tight',
      components: [
        { kind: 'CHAT_HISTORY', tokenBudget: 5, overflow: 'DROP' },
        { kind: 'TOOL_RESULTS', tokenBudget: 100 },
      ],
    };
    const frame = (await gql(FRAME, { runId: run.id, preset })).data!.contextFrame;
    expect(frame.components.map((c: Json) => c.kind)).toEqual(['TOOL_RESULTS']);
    const tokens = countTokens(
      'Traveler: Hello there.\n沈念: Welcome, traveler.\nTraveler: Where are the dragons?',
    );
    expect(frame.dropped).toEqual([
      { kind: 'CHAT_HISTORY', source: 'chat:c1', tokens, budget: 5, reason: 'component_budget' },
    ]);
    const events = await services.journal.read({ runId: run.id, limit: 100 });
    expect(events.map((e) => e.type)).toEqual(['run_started', 'context_component_dropped']);
    expect(events[1]!.payload).toEqual({
      kind: 'CHAT_HISTORY',
      source: 'chat:c1',
      tokens,
      budget: 5,
      reason: 'component_budget',
      preset: 'tight',
    });
  });

  const tightPreset = {
    name: 'tight',
    components: [
      { kind: 'CHAT_HISTORY', tokenBudget: 5, overflow: 'DROP' },
      { kind: 'TOOL_RESULTS', tokenBudget: 100 },
    ],
  };

  test('the same drop is journaled once however often the frame is assembled, and again once its content changes', async ({
    services,
    gql,
    run,
  }) => {
    const preset = {
      name: 'no-room',
      components: [{ kind: 'TOOL_RESULTS', tokenBudget: 5, overflow: 'DROP' }],
    };
    const echo = (text: string) =>
      services.calls.request({ runId: run.id, name: 'test.echo', arguments: { text } }, agent);
    await echo('the first result is long enough to be dropped');
    for (let i = 0; i < 3; i += 1)
      expect((await gql(FRAME, { runId: run.id, preset })).data!.contextFrame.dropped).toHaveLength(1);
    const drops = async () =>
      (await services.journal.read({ runId: run.id, limit: 100 })).filter(
        (e: Json) => e.type === 'context_component_dropped',
      );
    expect(await drops()).toHaveLength(1);

    await echo('a second result changes what was dropped');
    await gql(FRAME, { runId: run.id, preset });
    await gql(FRAME, { runId: run.id, preset });
    const tokens = (await drops()).map((e: Json) => e.payload.tokens as number);
    expect(tokens).toHaveLength(2);
    expect(tokens[1]).toBeGreaterThan(tokens[0]!);
  });

  test("a VIEWER's frame shows what was dropped but journals nothing", async ({
    services,
    gql,
    tokens,
    run,
  }) => {
    const res = await gql(FRAME, { runId: run.id, preset: tightPreset }, tokens.VIEWER);
    expect(res.data!.contextFrame.dropped).toMatchObject([
      { kind: 'CHAT_HISTORY', reason: 'component_budget' },
    ]);
    expect(await eventTypes(services, { runId: run.id })).toEqual(['run_started']);
  });

  test('over the total budget, optional components go lowest priority first; required ones stay', async ({
    services,
    gql,
    run,
  }) => {
    await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'x '.repeat(50) } },
      agent,
    );
    const preset = {
      totalBudget: 60,
      components: [
        { kind: 'CHAT_HISTORY', tokenBudget: 100, priority: 10, required: true },
        { kind: 'TOOL_RESULTS', tokenBudget: 100, priority: 20 },
      ],
    };
    const frame = (await gql(FRAME, { runId: run.id, preset })).data!.contextFrame;
    expect(frame.components.map((c: Json) => c.kind)).toEqual(['CHAT_HISTORY']);
    expect(frame.dropped).toMatchObject([{ kind: 'TOOL_RESULTS', budget: 60, reason: 'total_budget' }]);
    expect(frame.toolResultsVisible).toBe(false);
    expect(await eventTypes(services, { runId: run.id })).toContain('context_component_dropped');
  });

  test('FAIL gives CONTEXT_BUDGET_EXCEEDED with the component, its tokens and its budget', async ({
    gql,
    run,
  }) => {
    const preset = { components: [{ kind: 'CHAT_HISTORY', tokenBudget: 3, overflow: 'FAIL' }] };
    const res = await gql(FRAME, { runId: run.id, preset });
    expect(res.errors![0]!.extensions).toMatchObject({
      code: 'CONTEXT_BUDGET_EXCEEDED',
      kind: 'CHAT_HISTORY',
      budget: 3,
    });
    const total = await gql(FRAME, {
      runId: run.id,
      preset: { totalBudget: 3, components: [{ kind: 'CHAT_HISTORY', tokenBudget: 100, required: true }] },
    });
    expect(total.errors![0]!.extensions).toMatchObject({
      code: 'CONTEXT_BUDGET_EXCEEDED',
      kind: 'TOTAL',
      budget: 3,
    });
  });

  test('tool results in SUMMARY form are cut to their first tokens with the full size and field names', async ({
    services,
    gql,
    run,
  }) => {
    const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const big = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: long } },
      agent,
    );
    const preset = { components: [{ kind: 'TOOL_RESULTS', tokenBudget: 1000, form: 'SUMMARY' }] };
    const [entry] = (await gql(FRAME, { runId: run.id, preset })).data!.contextFrame.toolResults;
    expect(entry.callId).toBe(big.id);
    expect(entry.form).toBe('SUMMARY');
    expect(entry.text).toMatch(/^word0 word1 word2 /);
    expect(
      entry.text.endsWith(`\n[summary: the full result has ${countTokens(long)} tokens; fields: echoed]`),
    ).toBe(true);
    expect(countTokens(entry.text)).toBeLessThan(100);
  });

  test('presets are validated: unknown names, both forms, DROP on a required component', async ({
    gql,
    run,
  }) => {
    const codes = async (vars: Record<string, unknown>) =>
      ((await gql(FRAME, { runId: run.id, ...vars })).errors ?? []).map((e) => e.extensions?.code);
    expect(await codes({ presetName: 'nope' })).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ presetName: 'default', preset: { components: [] } })).toEqual(['BAD_USER_INPUT']);
    expect(
      await codes({
        preset: { components: [{ kind: 'CHAT_HISTORY', tokenBudget: 5, overflow: 'DROP', required: true }] },
      }),
    ).toEqual(['BAD_USER_INPUT']);
    expect(
      await codes({ preset: { components: [{ kind: 'WORLD_INFO', tokenBudget: 5, form: 'RAW' }] } }),
    ).toEqual(['BAD_USER_INPUT']);
    expect(await codes({ runId: '00000000-0000-4000-8000-000000000000' })).toEqual(['NOT_FOUND']);
  });
});

describe('tool results in the next request', () => {
  const openAiTurn = (calls: Array<[string, string, string]>) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map(([id, name, args]) => ({
            id,
            type: 'function',
            function: { name, arguments: args },
          })),
        },
        finish_reason: 'tool_calls',
      },
    ],
  });

  test('a preset without TOOL_RESULTS still answers every call, without the output; calls the runtime made go in the context block', async ({
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const own = await gql(
      'mutation($runId: ID!) { requestToolCall(input: { runId: $runId, name: "test.echo", arguments: { text: "runtime" } }) { id } }',
      { runId },
      tokens.AGENT,
    );
    await loop.submit(runId, 'OPENAI_CHAT', openAiTurn([['call_1', 'test_echo', '{"text":"secret"}']]));

    const hidden = await loop.request(runId, 'OPENAI_CHAT', { components: [] });
    expect(hidden.body.messages).toEqual([
      { role: 'user', content: '[No context was assembled for this request.]' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'test_echo', arguments: '{"text":"secret"}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: '[The output of this call is not shown in this context.]',
      },
    ]);

    const shown = await loop.request(runId, 'OPENAI_CHAT', {
      components: [{ kind: 'TOOL_RESULTS', tokenBudget: 500 }],
    });
    expect(shown.body.messages[0]).toEqual({
      role: 'user',
      content: `<TOOL_RESULTS source="run:${runId}">\n[test.echo · call ${own.data!.requestToolCall.id} · COMPLETED]\nruntime\n</TOOL_RESULTS>`,
    });
    expect(shown.body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'secret' });
  });

  test('invalid arguments from the model become a FAILED call that is answered; a repeat returns it', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const turn = openAiTurn([['call_bad', 'test_echo', '{"text": "unterminated']]);
    const first = await loop.submit(runId, 'OPENAI_CHAT', turn);
    expect(first.toolCalls).toMatchObject([
      {
        name: 'test.echo',
        status: 'FAILED',
        arguments: '{"text": "unterminated',
        error: { kind: 'RECOVERABLE', code: 'invalid_arguments' },
      },
    ]);
    const again = await loop.submit(runId, 'OPENAI_CHAT', turn);
    expect(again.toolCalls.map((c) => c.id)).toEqual([first.toolCalls[0].id]);
    expect((await services.runs.get(runId))!.status).toBe('RUNNING');
    const res = await gql(
      RESULTS,
      { runId, provider: 'ANTHROPIC', callIds: [first.toolCalls[0].id] },
      tokens.AGENT,
    );
    expect(res.data!.toolResultMessages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'call_bad',
            content: 'The arguments for "test.echo" are not a JSON object.',
            is_error: true,
          },
        ],
      },
    ]);
  });

  test('a call that was running when its run stopped is answered as interrupted, never as denied', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const submitting = loop.submit(runId, 'GEMINI', {
      responseId: 'r1',
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { id: 'fc_1', name: 'test_sleep', args: { ms: 30000 } } }],
          },
        },
      ],
    });
    const started = await waitFor(async () => {
      const [call] = await services.calls.page({ runId, limit: 1, inverted: false });
      return call?.status === 'STARTED' && call;
    });
    const pending = await gql(RESULTS, { runId, provider: 'GEMINI', callIds: [started.id] }, tokens.AGENT);
    expect(pending.errors![0]!.extensions).toMatchObject({ code: 'CONFLICT', pending: [started.id] });

    await gql('mutation($id: ID!) { cancelRun(id: $id) { status } }', { id: runId }, tokens.AGENT);
    await submitting;
    const res = await gql(RESULTS, { runId, provider: 'GEMINI', callIds: [started.id] }, tokens.AGENT);
    const text = res.data!.toolResultMessages[0].parts[0].functionResponse.response.error as string;
    expect(res.data!.toolResultMessages).toEqual([
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'fc_1', name: 'test_sleep', response: { error: text } } }],
      },
    ]);
    expect(text).toBe(
      'Interrupted: this tool call was interrupted before it finished; its effects may be incomplete. Reason: the run stopped while the call was running',
    );
    expect(text).not.toMatch(/denied/i);
  });

  test('toolResultMessages refuses calls no model turn made and unknown call ids', async ({
    services,
    gql,
  }) => {
    await allow(services);
    const runId = (await newRun(services)).id;
    const own = await services.calls.request({ runId, name: 'test.noop', arguments: {} }, agent);
    const notTurn = await gql(RESULTS, { runId, provider: 'OPENAI_CHAT', callIds: [own.id] });
    expect(notTurn.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const missing = await gql(RESULTS, {
      runId,
      provider: 'OPENAI_CHAT',
      callIds: ['00000000-0000-4000-8000-000000000009'],
    });
    expect(missing.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});
