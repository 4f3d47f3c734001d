import { describe, expect } from 'vitest';
import { chatJsonl } from '../support/chat.js';
import { dbTest } from '../support/fixtures.js';
import { allow, eventTypes, waitFor } from '../support/lifecycle.js';
import { type Json, loopClient, providerJson, providerStream, SUBMIT } from '../support/model-loop.js';

const SYSTEM = 'You are a careful agent.';
const preset = {
  system: SYSTEM,
  components: [
    { kind: 'CHAT_HISTORY', tokenBudget: 500 },
    { kind: 'TOOL_RESULTS', tokenBudget: 2000, form: 'RAW' },
  ],
};
const CONTEXT =
  '<CHAT_HISTORY source="chat:loop">\nTraveler: What is the weather in San Francisco?\n沈念: Let me check.\n</CHAT_HISTORY>';

/** A run on the chat "loop" with the test tools allowed, and the agent's GraphQL client for it. */
const test = dbTest.extend<{ loopRun: { loop: ReturnType<typeof loopClient>; runId: string } }>({
  loopRun: async ({ services, gql, tokens }, use) => {
    await allow(services);
    await services.chats.importChat(chatJsonl(['What is the weather in San Francisco?', 'Let me check.']), {
      id: 'loop',
      ownerUserId: 'u1',
      actor: 'test',
    });
    const loop = loopClient(gql, tokens);
    await use({ loop, runId: await loop.createRun({ profileId: 'p1', userId: 'u1', chatId: 'loop' }) });
  },
});

/**
 * The scripted model answers with recorded provider responses (../fixtures/providers). Tool
 * names and arguments are rewritten to the test tools; signatures, encrypted reasoning and ids are
 * left exactly as recorded, and must come back byte for byte in the next request.
 */
describe('multi-turn loop through the API', () => {
  test('ANTHROPIC: thinking + tool_use, denied, then a final answer; signatures replayed, dropped elsewhere', async ({
    services,
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const recorded = providerJson('anthropic-messages-thinking-tool_use.json');
    const response = structuredClone(recorded);
    response.content[1].name = 'test_dangerous';

    const first = await loop.submit(runId, 'ANTHROPIC', response);
    expect(first.turn).toMatchObject({
      index: 0,
      provider: 'ANTHROPIC',
      providerCallIds: ['toolu_017R7ACrx7NF7sLDDtvdQ1u9'],
    });
    expect(first.toolCalls).toMatchObject([
      {
        name: 'test.dangerous',
        status: 'AWAITING_APPROVAL',
        providerCallId: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9',
        providerMetadata: { provider: 'ANTHROPIC', nativeName: 'test_dangerous', caller: { type: 'direct' } },
      },
    ]);
    expect((await loop.requestError(runId, 'ANTHROPIC', preset))?.extensions?.code).toBe('CONFLICT');

    const denied = await loop.decide(first.toolCalls[0].id, false, 'not in tests');
    expect(await eventTypes(services, { callId: denied.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_denied',
    ]);
    const tools = await loop.tools(runId, 'ANTHROPIC');
    const next = await loop.request(runId, 'ANTHROPIC', preset);
    const answers = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9',
          content: `Denied: this tool call was not approved and did not run. Reason: ${denied.error!.message}`,
          is_error: true,
        },
      ],
    };
    expect(next.body).toEqual({
      system: SYSTEM,
      messages: [
        { role: 'user', content: [{ type: 'text', text: CONTEXT }] },
        {
          role: 'assistant',
          content: recorded.content.map((b: Json) =>
            b.type === 'tool_use' ? { ...b, name: 'test_dangerous' } : b,
          ),
        },
        answers,
      ],
      tools,
    });
    expect(JSON.stringify(next.body.messages[1])).toBe(
      JSON.stringify({ role: 'assistant', content: response.content }),
    );
    expect(next.body.messages[1].content[0].signature).toBe(recorded.content[0].signature);

    const again = await loop.submit(runId, 'ANTHROPIC', response);
    expect(again.turn.id).toBe(first.turn.id);
    expect(again.toolCalls.map((c) => c.id)).toEqual([first.toolCalls[0].id]);

    const final = providerJson('anthropic-messages-thinking-text.json');
    const second = await loop.submit(runId, 'ANTHROPIC', final);
    expect(second.turn.index).toBe(1);
    expect(second.toolCalls).toEqual([]);
    const last = await loop.request(runId, 'ANTHROPIC', preset);
    expect(last.body.messages).toEqual([
      ...next.body.messages,
      { role: 'assistant', content: final.content },
    ]);
    expect(JSON.stringify(last.body.messages[3])).toBe(
      JSON.stringify({ role: 'assistant', content: final.content }),
    );

    // The same history sent to OpenAI: the thinking blocks and their signatures cannot be used there.
    const moved = await loop.request(runId, 'OPENAI_CHAT', preset);
    const movedText = JSON.stringify(moved.body);
    expect(movedText).not.toContain(recorded.content[0].signature);
    expect(movedText).not.toContain(final.content[0].signature);
    expect(moved.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9',
            type: 'function',
            function: { name: 'test_dangerous', arguments: '{}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9',
        content: answers.content[0]!.content,
      },
      { role: 'assistant', content: final.content[1].text },
    ]);
  });

  test('OPENAI_CHAT: reasoning_content turn, then parallel calls with an approval', async ({ loopRun }) => {
    const { loop, runId } = loopRun;
    const deepseek = providerJson('deepseek-chat-completion-reasoning_content-tool_calls.json');
    const m1 = deepseek.choices[0].message;
    m1.tool_calls[0].function = { name: 'test_echo', arguments: '{"text": "San Francisco"}' };
    const first = await loop.submit(runId, 'OPENAI_CHAT', deepseek);
    expect(first.toolCalls).toMatchObject([
      { name: 'test.echo', status: 'COMPLETED', providerCallId: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo' },
    ]);

    const parallel = providerJson('openai-chat-completion-parallel-tool_calls.json');
    const m2 = parallel.choices[0].message;
    m2.tool_calls[0].function = { name: 'test_echo', arguments: '{"text": "Edinburgh"}' };
    m2.tool_calls[1].function = { name: 'test_dangerous', arguments: '{}' };
    const second = await loop.submit(runId, 'OPENAI_CHAT', parallel);
    expect(second.turn.index).toBe(1);
    expect(second.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['test.echo', 'COMPLETED'],
      ['test.dangerous', 'AWAITING_APPROVAL'],
    ]);
    await loop.decide(second.toolCalls[1].id, true, 'fine');
    await waitFor(async () => (await loop.call(second.toolCalls[1].id)).status === 'COMPLETED');

    const tools = await loop.tools(runId, 'OPENAI_CHAT');
    const next = await loop.request(runId, 'OPENAI_CHAT', preset);
    expect(next.body).toEqual({
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: CONTEXT },
        {
          role: 'assistant',
          content: '',
          reasoning_content: m1.reasoning_content,
          tool_calls: m1.tool_calls,
        },
        { role: 'tool', tool_call_id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', content: 'San Francisco' },
        { role: 'assistant', content: null, tool_calls: m2.tool_calls },
        { role: 'tool', tool_call_id: 'call_fdNz3vOBKYgOIpMdWotB9MjY', content: 'Edinburgh' },
        { role: 'tool', tool_call_id: 'call_h1DWI1POMJLb0KwIyQHWXD4p', content: 'did something dangerous' },
      ],
      tools,
    });
    expect(JSON.stringify(next.body.messages[2])).toBe(
      JSON.stringify({
        role: 'assistant',
        content: '',
        reasoning_content: m1.reasoning_content,
        tool_calls: m1.tool_calls,
      }),
    );
    expect(next.frame.toolResults.map((r: Json) => r.text)).toEqual([
      'San Francisco',
      'Edinburgh',
      'did something dangerous',
    ]);
  });

  test('OPENAI_RESPONSES: streamed reasoning + an unknown tool, then a call; encrypted_content replayed', async ({
    services,
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const events = providerStream('openai-responses-reasoning-function_call.stream.jsonl', [0, 56]);
    const completed = (events[55] as Json).response;
    expect(completed.output.map((i: Json) => i.type)).toEqual(['reasoning', 'function_call']);

    const first = await loop.submit(runId, 'OPENAI_RESPONSES', events, true);
    const unknownMessage =
      'The model called "calculator", which is not one of the tools offered for this run.';
    expect(first.toolCalls).toMatchObject([
      {
        name: 'calculator',
        status: 'FAILED',
        providerCallId: completed.output[1].call_id,
        error: { kind: 'RECOVERABLE', code: 'unknown_tool', message: unknownMessage },
      },
    ]);
    expect(await eventTypes(services, { callId: first.toolCalls[0].id })).toEqual([
      'tool_call_requested',
      'tool_call_failed',
    ]);

    const azure = providerJson('openai-responses-function_call-azure.json');
    azure.output[0].name = 'test_echo';
    azure.output[0].arguments = '{"text":"San Francisco"}';
    const second = await loop.submit(runId, 'OPENAI_RESPONSES', azure);
    expect(second.toolCalls).toMatchObject([{ name: 'test.echo', status: 'COMPLETED' }]);

    const tools = await loop.tools(runId, 'OPENAI_RESPONSES');
    const next = await loop.request(runId, 'OPENAI_RESPONSES', preset);
    expect(next.body).toEqual({
      instructions: SYSTEM,
      input: [
        { role: 'user', content: [{ type: 'input_text', text: CONTEXT }] },
        ...completed.output,
        { type: 'function_call_output', call_id: completed.output[1].call_id, output: unknownMessage },
        ...azure.output,
        { type: 'function_call_output', call_id: 'call_YunNGbIwdVJ2i0y0Mybva4Pw', output: 'San Francisco' },
      ],
      store: false,
      include: ['reasoning.encrypted_content'],
      tools,
    });
    expect(JSON.stringify(next.body.input.slice(1, 3))).toBe(JSON.stringify(completed.output));
    expect(next.body.input[1].encrypted_content).toBe(completed.output[0].encrypted_content);
  });

  test('GEMINI: streamed parallel calls, thoughtSignature only on the first, then a signed text turn', async ({
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const rewrite = (line: string) =>
      line
        .replaceAll('"name":"read_theme"', '"name":"test_noop"')
        .replaceAll('"name":"read_screen"', '"name":"test_echo"')
        .replaceAll('"jsonPath":"$.id"', '"jsonPath":"$.text"');
    const chunks = providerStream(
      'gemini-streamGenerateContent-thought-parallel-functionCall.stream.jsonl',
      undefined,
      rewrite,
    );
    const signature = (chunks[1] as Json).candidates[0].content.parts[0].thoughtSignature as string;

    const first = await loop.submit(runId, 'GEMINI', chunks, true);
    expect(first.toolCalls.map((c) => [c.name, c.arguments, c.status])).toEqual([
      ['test.noop', {}, 'COMPLETED'],
      ['test.echo', { text: 'A' }, 'COMPLETED'],
      ['test.echo', { text: 'B' }, 'COMPLETED'],
      ['test.echo', { text: 'C' }, 'COMPLETED'],
    ]);
    expect(first.toolCalls.map((c) => c.providerMetadata.thoughtSignature ?? null)).toEqual([
      signature,
      null,
      null,
      null,
    ]);
    expect(first.toolCalls.every((c) => c.providerCallId.startsWith('synth_'))).toBe(true);
    const signed = first.turn.native[0].parts.filter((p: Json) => p.thoughtSignature !== undefined);
    expect(signed).toEqual([{ functionCall: { name: 'test_noop' }, thoughtSignature: signature }]);

    const final = providerJson('gemini-generateContent-text-thoughtSignature.json');
    const second = await loop.submit(runId, 'GEMINI', final);
    expect(second.toolCalls).toEqual([]);

    const tools = await loop.tools(runId, 'GEMINI');
    const next = await loop.request(runId, 'GEMINI', preset);
    const response = (output: string) => ({ response: { output } });
    expect(next.body).toEqual({
      systemInstruction: { parts: [{ text: SYSTEM }] },
      contents: [
        { role: 'user', parts: [{ text: CONTEXT }] },
        first.turn.native[0],
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'test_noop', ...response('(no output)') } },
            { functionResponse: { name: 'test_echo', ...response('A') } },
            { functionResponse: { name: 'test_echo', ...response('B') } },
            { functionResponse: { name: 'test_echo', ...response('C') } },
          ],
        },
        final.candidates[0].content,
      ],
      tools,
    });
    expect(JSON.stringify(next.body.contents[1])).toBe(JSON.stringify(first.turn.native[0]));
    expect(JSON.stringify(next.body.contents[3])).toBe(JSON.stringify(final.candidates[0].content));
  });

  test('GEMINI: the same call without ids in two turns is two calls; resubmitting a turn is not', async ({
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const response = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { name: 'test_echo', args: { text: 'again' } } }],
          },
        },
      ],
    };

    const first = await loop.submit(runId, 'GEMINI', response);
    const replayed = await loop.submit(runId, 'GEMINI', response);
    const second = await loop.submit(runId, 'GEMINI', { ...response, usageMetadata: { totalTokenCount: 9 } });

    expect(replayed.turn.id).toBe(first.turn.id);
    expect(replayed.toolCalls.map((c) => c.id)).toEqual(first.toolCalls.map((c) => c.id));
    expect(second.turn.index).toBe(1);
    expect(second.toolCalls.map((c) => [c.name, c.arguments, c.status])).toEqual([
      ['test.echo', { text: 'again' }, 'COMPLETED'],
    ]);
    expect(second.toolCalls[0].id).not.toBe(first.toolCalls[0].id);
    expect(first.toolCalls[0].providerCallId).toMatch(/^synth_[0-9a-f]{24}_t0$/);
    expect(second.toolCalls[0].providerCallId).toMatch(/^synth_[0-9a-f]{24}_t1$/);
  });
  /** An OpenAI-compatible local server that numbers its calls per response. */
  const numbered = (args: string, id = 'call_0', name = 'test_echo') => ({
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
        },
      },
    ],
  });

  test('OPENAI_CHAT: a call id reused in a later turn is a new call, answered under its native id', async ({
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const first = await loop.submit(runId, 'OPENAI_CHAT', numbered('{"text": "one"}'));
    const second = await loop.submit(runId, 'OPENAI_CHAT', numbered('{"text": "two"}'));
    const again = await loop.submit(runId, 'OPENAI_CHAT', numbered('{"text": "two"}'));

    expect(first.toolCalls).toMatchObject([{ providerCallId: 'call_0', status: 'COMPLETED' }]);
    expect(second.turn).toMatchObject({ index: 1, providerCallIds: ['call_0#t1'] });
    expect(second.toolCalls).toMatchObject([
      { providerCallId: 'call_0#t1', arguments: { text: 'two' }, status: 'COMPLETED' },
    ]);
    expect(second.toolCalls[0].id).not.toBe(first.toolCalls[0].id);
    expect(again.toolCalls.map((c) => c.id)).toEqual(second.toolCalls.map((c) => c.id));
    const next = await loop.request(runId, 'OPENAI_CHAT', preset);
    expect(next.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: numbered('{"text": "one"}').choices[0]!.message.tool_calls,
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'one' },
      {
        role: 'assistant',
        content: null,
        tool_calls: numbered('{"text": "two"}').choices[0]!.message.tool_calls,
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'two' },
    ]);
  });

  test('OPENAI_CHAT: a call with oversized arguments fails recoverably and the calls after it still run', async ({
    services,
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const huge = JSON.stringify({ text: 'x'.repeat(300 * 1024) });
    const response = numbered(huge, 'call_big');
    response.choices[0]!.message.tool_calls.push({
      id: 'call_small',
      type: 'function',
      function: { name: 'test_echo', arguments: '{"text": "small"}' },
    });
    const submitted = await loop.submit(runId, 'OPENAI_CHAT', response);
    expect(submitted.toolCalls.map((c) => [c.providerCallId, c.status, c.error?.code ?? null])).toEqual([
      ['call_big', 'FAILED', 'invalid_arguments'],
      ['call_small', 'COMPLETED', null],
    ]);
    expect(submitted.toolCalls[0].error).toMatchObject({
      kind: 'RECOVERABLE',
      message: expect.stringContaining('at most 262144 are accepted'),
    });
    expect(await eventTypes(services, { callId: submitted.toolCalls[0].id })).toEqual([
      'tool_call_requested',
      'tool_call_failed',
    ]);
    const next = await loop.request(runId, 'OPENAI_CHAT', preset);
    expect(next.body.messages.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'call_big', content: submitted.toolCalls[0].error.message },
      { role: 'tool', tool_call_id: 'call_small', content: 'small' },
    ]);
  });

  test('OPENAI_CHAT: a reused id whose suffixed key an earlier turn already holds gets the next free key', async ({
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const both = numbered('{"text": "zero"}');
    both.choices[0]!.message.tool_calls.push({
      id: 'call_0#t1',
      type: 'function',
      function: { name: 'test_echo', arguments: '{"text": "sneaky"}' },
    });
    const first = await loop.submit(runId, 'OPENAI_CHAT', both);
    const second = await loop.submit(runId, 'OPENAI_CHAT', numbered('{"text": "again"}'));
    expect(first.toolCalls.map((c) => c.providerCallId)).toEqual(['call_0', 'call_0#t1']);
    expect(second.toolCalls).toMatchObject([
      { providerCallId: 'call_0#t1.2', arguments: { text: 'again' }, status: 'COMPLETED' },
    ]);
    const next = await loop.request(runId, 'OPENAI_CHAT', preset);
    expect(next.body.messages.filter((m: Json) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_0', content: 'zero' },
      { role: 'tool', tool_call_id: 'call_0#t1', content: 'sneaky' },
      { role: 'tool', tool_call_id: 'call_0', content: 'again' },
    ]);
  });

  test('OPENAI_CHAT: an empty call id is stored under a turn key and answered under the empty id', async ({
    loopRun,
  }) => {
    const { loop, runId } = loopRun;
    const submitted = await loop.submit(runId, 'OPENAI_CHAT', numbered('{"text": "anonymous"}', ''));
    expect(submitted.toolCalls).toMatchObject([{ providerCallId: '#t0', status: 'COMPLETED' }]);
    const next = await loop.request(runId, 'OPENAI_CHAT', preset);
    expect(next.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: '', content: 'anonymous' });
  });

  test('a call id longer than 256 characters refuses the whole response and stores nothing', async ({
    services,
    gql,
    tokens,
    loopRun,
  }) => {
    const { runId } = loopRun;
    const res = await gql(
      SUBMIT,
      { runId, provider: 'OPENAI_CHAT', response: numbered('{"text": "a"}', `call_${'x'.repeat(300)}`) },
      tokens.AGENT,
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toContain('longer than 256 characters');
    expect(await services.models.turns(runId)).toEqual([]);
    expect(await services.calls.page({ runId, limit: 10, inverted: false })).toEqual([]);
  });
});
