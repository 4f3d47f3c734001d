import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import { runTest } from '../support/fixtures.js';
import { admin, agent, approver, eventTypes, newRun, resultText, structured } from '../support/lifecycle.js';

/** `run` may call every test tool, and test.echo needs a person's approval. */
const test = runTest.extend<{ run: RunRow }>({
  run: async ({ services, run }, use) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    await use(run);
  },
});

const DENY = `mutation($id: ID!, $reason: String, $feedback: String, $allowRetry: Boolean, $argumentsHash: String) {
  denyToolCall(id: $id, reason: $reason, feedback: $feedback, allowRetry: $allowRetry, argumentsHash: $argumentsHash) {
    id status
    decision { approved decidedBy reason feedback allowRetry repeatOf argumentsHash }
    error { kind code message }
    result { isError structured content { ... on TextPart { text } } }
  }
}`;

const echo = (services: Services, runId: string, text: string) =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text } }, agent);

describe('deny with feedback', () => {
  test('the feedback is the model’s answer: "Denied by <person>: <feedback>", with who and why in structured', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const held = await echo(services, run.id, 'rm -rf /');
    const res = await gql(
      DENY,
      {
        id: held.id,
        reason: 'destructive',
        feedback: '  Write the file under output/drafts/ instead.  ',
        argumentsHash: held.argumentsHash,
      },
      tokens.APPROVER,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.denyToolCall).toEqual({
      id: held.id,
      status: 'DENIED',
      decision: {
        approved: false,
        decidedBy: 'approver:test-approver',
        reason: 'destructive',
        feedback: 'Write the file under output/drafts/ instead.',
        allowRetry: false,
        repeatOf: null,
        argumentsHash: held.argumentsHash,
      },
      error: {
        kind: 'POLICY_DENIED',
        code: 'approval_denied',
        message: 'Denied by approver:test-approver: Write the file under output/drafts/ instead.',
      },
      result: {
        isError: true,
        structured: {
          error: { kind: 'POLICY_DENIED', code: 'approval_denied' },
          denial: {
            by: 'approver:test-approver',
            reason: 'destructive',
            feedback: 'Write the file under output/drafts/ instead.',
          },
        },
        content: [{ text: 'Denied by approver:test-approver: Write the file under output/drafts/ instead.' }],
      },
    });
    const events = await services.journal.read({ callId: held.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_denied',
    ]);
    expect(events[2]).toMatchObject({
      actor: 'approver:test-approver',
      payload: {
        reason: 'destructive',
        argumentsHash: held.argumentsHash,
        feedback: 'Write the file under output/drafts/ instead.',
        allowRetry: false,
      },
    });
  });

  test('without feedback (or with only blanks) the answer keeps the usual wording', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id, 'a');
    const denied = await services.calls.deny(held.id, { reason: 'not now', feedback: ' \n ' }, approver);
    expect(denied.decision).toMatchObject({ feedback: null, allowRetry: false });
    expect(resultText(denied)).toBe(
      'A person (approver:alice) denied the call to test.echo: not now. Do not retry it unchanged.',
    );
    expect(structured(denied).denial).toEqual({ by: 'approver:alice', reason: 'not now', feedback: null });
  });

  test('feedback over 4000 characters is BAD_USER_INPUT and decides nothing', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const held = await echo(services, run.id, 'a');
    const res = await gql(DENY, { id: held.id, feedback: 'x'.repeat(4001) }, tokens.APPROVER);
    expect(res.data?.denyToolCall ?? null).toBeNull();
    expect(res.errors![0]!.message).toBe('feedback: must be at most 4000 characters');
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect((await services.calls.get(held.id))!.status).toBe('AWAITING_APPROVAL');
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
    // 4000 characters after trimming are accepted.
    const ok = await services.calls.deny(held.id, { feedback: ` ${'y'.repeat(4000)} ` }, approver);
    expect(ok.decision!.feedback).toBe('y'.repeat(4000));
  });

  test('4000 characters of Chinese feedback reach the model whole; the journal keeps the first 1000', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id, 'a');
    const feedback = '请改写到草稿目录'.repeat(500);
    const denied = await services.calls.deny(held.id, { feedback }, approver);
    expect(resultText(denied)).toBe(`Denied by approver:alice: ${feedback}`);
    const [event] = (await services.journal.read({ callId: held.id, limit: 10 })).slice(-1);
    expect(event!.type).toBe('tool_call_denied');
    expect(event!.payload).toEqual({
      reason: null,
      argumentsHash: held.argumentsHash,
      feedback: feedback.slice(0, 1000),
      allowRetry: false,
    });
  });

  test('feedback that is not text is BAD_USER_INPUT from the service too', async ({ services, run }) => {
    const held = await echo(services, run.id, 'a');
    await expect(services.calls.deny(held.id, { feedback: 42 as never }, approver)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    expect((await services.calls.get(held.id))!.status).toBe('AWAITING_APPROVAL');
  });
});

describe('an identical call after a denial', () => {
  test('is refused at once with the earlier decision, without asking anybody again', async ({
    services,
    run,
  }) => {
    const first = await echo(services, run.id, 'rm -rf /');
    await services.calls.deny(first.id, { reason: 'no', feedback: 'Never delete the root.' }, approver);
    const again = await echo(services, run.id, 'rm -rf /');
    expect(again.id).not.toBe(first.id);
    expect(again.status).toBe('DENIED');
    expect(again.approvalExpiresAt).toBeNull();
    expect(again.policyReason).toMatch(
      new RegExp(
        `^denied without asking again: the identical call ${first.id} was denied by approver:alice at `,
      ),
    );
    expect(again.decision).toMatchObject({
      approved: false,
      decidedBy: 'approver:alice',
      reason: 'no',
      feedback: 'Never delete the root.',
      allowRetry: false,
      repeatOf: first.id,
    });
    expect(resultText(again)).toBe('Denied by approver:alice: Never delete the root.');
    expect(structured(again).denial).toEqual({
      by: 'approver:alice',
      reason: 'no',
      feedback: 'Never delete the root.',
      repeatOf: first.id,
    });
    const events = await services.journal.read({ callId: again.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual(['tool_call_requested', 'tool_call_denied']);
    expect(events[1]).toMatchObject({
      actor: 'system',
      payload: {
        reason: 'no',
        repeatOf: first.id,
        decidedBy: 'approver:alice',
        decidedAt: (await services.calls.get(first.id))!.decision!.decidedAt,
        argumentsHash: first.argumentsHash,
      },
    });
    const asked = (await eventTypes(services, { runId: run.id })).filter(
      (t) => t === 'tool_call_awaiting_approval',
    );
    expect(asked).toHaveLength(1);
  });

  test('a third identical call still names the call the person decided on', async ({ services, run }) => {
    const first = await echo(services, run.id, 'x');
    await services.calls.deny(first.id, {}, approver);
    await echo(services, run.id, 'x');
    const third = await echo(services, run.id, 'x');
    expect(third.status).toBe('DENIED');
    expect(third.decision!.repeatOf).toBe(first.id);
    expect(resultText(third)).toBe(
      'A person (approver:alice) denied the call to test.echo. Do not retry it unchanged.',
    );
  });

  test('other arguments, or the same call in another run, ask again', async ({ services, run }) => {
    const first = await echo(services, run.id, 'x');
    await services.calls.deny(first.id, {}, approver);
    expect((await echo(services, run.id, 'y')).status).toBe('AWAITING_APPROVAL');
    const other = await newRun(services);
    expect((await echo(services, other.id, 'x')).status).toBe('AWAITING_APPROVAL');
  });

  test('with allowRetry it asks again; a later denial without it refuses the next one', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const first = await echo(services, run.id, 'x');
    const res = await gql(
      DENY,
      { id: first.id, allowRetry: true, feedback: 'Ask me after lunch.' },
      tokens.APPROVER,
    );
    expect(res.data!.denyToolCall.decision).toMatchObject({
      allowRetry: true,
      feedback: 'Ask me after lunch.',
    });
    const second = await echo(services, run.id, 'x');
    expect(second.status).toBe('AWAITING_APPROVAL');
    expect(await eventTypes(services, { callId: second.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
    await services.calls.deny(second.id, { reason: 'still no' }, approver);
    const third = await echo(services, run.id, 'x');
    expect(third.status).toBe('DENIED');
    expect(third.decision).toMatchObject({ reason: 'still no', repeatOf: second.id });
  });

  test('an approved identical call is not refused: only denials carry over', async ({ services, run }) => {
    const first = await echo(services, run.id, 'x');
    await services.calls.approve(first.id, {}, approver);
    expect((await echo(services, run.id, 'x')).status).toBe('AWAITING_APPROVAL');
  });
});
