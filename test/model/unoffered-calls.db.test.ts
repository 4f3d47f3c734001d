import { describe, expect } from 'vitest';
import { dbTest } from '../support/fixtures.js';
import { admin, allow, eventTypes } from '../support/lifecycle.js';
import { type Json, loopClient, providerJson } from '../support/model-loop.js';

const HIDDEN = 'test.echo';
const DENY_REASON = 'no echo for p1';

/** A recorded response of each provider whose one call names `nativeName` with `{ text: "x" }`. */
const responses: Record<string, (nativeName: string) => Json> = {
  OPENAI_CHAT: (nativeName) => {
    const body = providerJson('deepseek-chat-completion-reasoning_content-tool_calls.json');
    body.choices[0].message.tool_calls[0].function = { name: nativeName, arguments: '{"text":"x"}' };
    return body;
  },
  OPENAI_RESPONSES: (nativeName) => {
    const body = providerJson('openai-responses-function_call-azure.json');
    Object.assign(body.output[0], { name: nativeName, arguments: '{"text":"x"}' });
    return body;
  },
  ANTHROPIC: (nativeName) => {
    const body = providerJson('anthropic-messages-text-tool_use.json');
    Object.assign(body.content[1], { name: nativeName, input: { text: 'x' } });
    return body;
  },
  GEMINI: (nativeName) => {
    const body = providerJson('gemini-generateContent-functionCall-thoughtSignature.json');
    body.candidates[0].content.parts[0].functionCall = { name: nativeName, args: { text: 'x' } };
    return body;
  },
};
const providers = Object.keys(responses);

/** test.* allowed for profile p1, test.echo denied by a PROFILE rule: it exists, but this run's model may not see it. */
const test = dbTest.extend<{ hidden: { loop: ReturnType<typeof loopClient> } }>({
  hidden: async ({ services, gql, tokens }, use) => {
    await allow(services);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: HIDDEN, effect: 'DENY', reason: DENY_REASON },
      admin,
    );
    await use({ loop: loopClient(gql, tokens) });
  },
});

const runStatus = async (gql: Json, runId: string) =>
  (await gql(`query($id: ID!) { run(id: $id) { status } }`, { id: runId })).data.run.status;

describe("a model's call to a tool it was not offered takes the one policy path", () => {
  const cells = providers.flatMap((provider) =>
    (['FAIL_RUN', 'RETURN_DENIED_RESULT'] as const).map((strategy) => ({ provider, strategy })),
  );

  test.for(cells)(
    '$provider, $strategy: journaled as policy_violation and the strategy decides',
    async ({ provider, strategy }, { hidden, services, gql }) => {
      const { loop } = hidden;
      const runId = await loop.createRun({ profileId: 'p1', userId: 'u1', deniedToolStrategy: strategy });
      const offered = await loop.tools(runId, provider);
      expect(JSON.stringify(offered)).not.toContain('test_echo');

      const { toolCalls } = await loop.submit(runId, provider, responses[provider]!('test_echo'));
      const reason = `denied by PROFILE rule`;
      expect(toolCalls).toHaveLength(1);
      expect(toolCalls[0]).toMatchObject({
        name: HIDDEN,
        status: 'FAILED',
        error: { kind: 'POLICY_DENIED', code: 'tool_not_available' },
      });
      expect(toolCalls[0].error.message).toContain(reason);
      expect(toolCalls[0].error.message).toContain(DENY_REASON);
      expect(await eventTypes(services, { callId: toolCalls[0].id })).toEqual([
        'tool_call_requested',
        'policy_violation',
        'tool_call_failed',
      ]);
      const [violation] = (await services.journal.read({ callId: toolCalls[0].id, limit: 10 })).filter(
        (e) => e.type === 'policy_violation',
      );
      expect(violation!.payload).toMatchObject({ tool: HIDDEN, strategy });
      expect(await runStatus(gql, runId)).toBe(strategy === 'FAIL_RUN' ? 'FAILED' : 'RUNNING');
    },
  );

  test.for(providers)(
    '%s: the dotted registry name itself is recognised as the hidden tool too',
    async (provider, { hidden }) => {
      const { loop } = hidden;
      const runId = await loop.createRun({ profileId: 'p1', userId: 'u1' });
      const { toolCalls } = await loop.submit(runId, provider, responses[provider]!(HIDDEN));
      expect(toolCalls[0]).toMatchObject({
        name: HIDDEN,
        status: 'FAILED',
        error: { code: 'tool_not_available' },
      });
    },
  );

  test.for(providers)(
    '%s: a name no tool has stays a recoverable unknown_tool',
    async (provider, { hidden, services, gql }) => {
      const { loop } = hidden;
      const runId = await loop.createRun({ profileId: 'p1', userId: 'u1', deniedToolStrategy: 'FAIL_RUN' });
      const { toolCalls } = await loop.submit(runId, provider, responses[provider]!('no_such_tool'));
      expect(toolCalls[0]).toMatchObject({
        name: 'no_such_tool',
        status: 'FAILED',
        error: { kind: 'RECOVERABLE', code: 'unknown_tool' },
      });
      expect(await eventTypes(services, { callId: toolCalls[0].id })).toEqual([
        'tool_call_requested',
        'tool_call_failed',
      ]);
      expect(await runStatus(gql, runId)).toBe('RUNNING');
    },
  );

  test('the denied result the model reads is the policy denial, under its own call id', async ({
    hidden,
  }) => {
    const { loop } = hidden;
    const runId = await loop.createRun({
      profileId: 'p1',
      userId: 'u1',
      deniedToolStrategy: 'RETURN_DENIED_RESULT',
    });
    const { toolCalls } = await loop.submit(runId, 'OPENAI_CHAT', responses.OPENAI_CHAT!('test_echo'));
    const next = await loop.request(runId, 'OPENAI_CHAT', {
      components: [{ kind: 'TOOL_RESULTS', tokenBudget: 2000, form: 'RAW' }],
    });
    const answer = next.body.messages.find((m: Json) => m.role === 'tool');
    expect(answer).toEqual({
      role: 'tool',
      tool_call_id: toolCalls[0].providerCallId,
      content: toolCalls[0].error.message,
    });
    expect(toolCalls[0].error.message).toMatch(
      /^The tool test\.echo is not available to you: denied by PROFILE rule /,
    );
  });
});
