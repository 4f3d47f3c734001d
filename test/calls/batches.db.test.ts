import { describe, expect } from 'vitest';
import { echoAsksTest } from '../support/echo-asks.js';
import { admin, approver, eventTypes, waitFor } from '../support/lifecycle.js';
import type { Json } from '../support/model-loop.js';

const test = echoAsksTest;

/** One assistant turn calling test.echo once per text, and test.noop once first. */
const turnOf = (id: string, texts: string[]) => ({
  id,
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_noop', type: 'function', function: { name: 'test_noop', arguments: '{}' } },
          ...texts.map((text, i) => ({
            id: `call_${i}`,
            type: 'function',
            function: { name: 'test_echo', arguments: JSON.stringify({ text }) },
          })),
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
});

const BATCH = `query($turnId: ID!) {
  approvalBatch(turnId: $turnId) { turnId run { id } pending calls { id status providerCallId turnId } }
}`;
const DECIDE = `mutation($turnId: ID!, $input: DecideApprovalBatchInput!) {
  decideApprovalBatch(turnId: $turnId, input: $input) {
    batch { pending calls { id status } }
    decided { id status decision { approved reason feedback } }
    conflicts { callId status message }
  }
}`;

describe('approval batches: the calls of one model turn', () => {
  test('approvalBatch lists the calls of the turn that need approval, in turn order', async ({
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const { turn, toolCalls } = await loop.submit(runId, 'OPENAI_CHAT', turnOf('t1', ['a', 'b', 'c']));
    const res = await gql(BATCH, { turnId: turn.id }, tokens.APPROVER);
    expect(res.errors).toBeUndefined();
    expect(res.data!.approvalBatch).toEqual({
      turnId: turn.id,
      run: { id: runId },
      pending: 3,
      calls: toolCalls.slice(1).map((c: Json, i: number) => ({
        id: c.id,
        status: 'AWAITING_APPROVAL',
        providerCallId: `call_${i}`,
        turnId: turn.id,
      })),
    });
  });

  test('one mutation with mixed decisions: each listed call its own, `all` for the rest', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const { turn, toolCalls } = await loop.submit(runId, 'OPENAI_CHAT', turnOf('t1', ['a', 'b', 'c']));
    const [, a, b, c] = toolCalls as Json[];
    const res = await gql(
      DECIDE,
      {
        turnId: turn.id,
        input: {
          all: 'APPROVE',
          reason: 'fine',
          decisions: [{ id: b.id, verdict: 'DENY', reason: 'not b', feedback: 'Use a instead.' }],
        },
      },
      tokens.APPROVER,
    );
    expect(res.errors).toBeUndefined();
    const result = res.data!.decideApprovalBatch;
    expect(result.conflicts).toEqual([]);
    expect(result.decided).toEqual([
      {
        id: b.id,
        status: 'DENIED',
        decision: { approved: false, reason: 'not b', feedback: 'Use a instead.' },
      },
      { id: a.id, status: 'APPROVED', decision: { approved: true, reason: 'fine', feedback: null } },
      { id: c.id, status: 'APPROVED', decision: { approved: true, reason: 'fine', feedback: null } },
    ]);
    expect(result.batch.pending).toBe(0);
    for (const call of [a, c])
      await waitFor(async () => (await services.calls.get(call.id))?.status === 'COMPLETED');
    const answers = await gql(
      'query($runId: ID!, $callIds: [ID!]!) { toolResultMessages(runId: $runId, provider: OPENAI_CHAT, callIds: $callIds) }',
      { runId, callIds: [a.id] },
      tokens.AGENT,
    );
    expect(answers.data!.toolResultMessages).toEqual([
      { role: 'tool', tool_call_id: 'call_noop', content: '(no output)' },
      { role: 'tool', tool_call_id: 'call_0', content: 'a' },
      { role: 'tool', tool_call_id: 'call_1', content: 'Denied by approver:test-approver: Use a instead.' },
      { role: 'tool', tool_call_id: 'call_2', content: 'c' },
    ]);
  });

  test('a call decided before the batch is a conflict entry; the others still get their decision', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const { turn, toolCalls } = await loop.submit(runId, 'OPENAI_CHAT', turnOf('t1', ['a', 'b']));
    const [, a, b] = toolCalls as Json[];
    await services.calls.deny(a.id, { reason: 'first' }, approver);
    const res = await gql(
      DECIDE,
      {
        turnId: turn.id,
        input: {
          decisions: [
            { id: a.id, verdict: 'APPROVE' },
            { id: b.id, verdict: 'APPROVE' },
          ],
        },
      },
      tokens.APPROVER,
    );
    expect(res.data!.decideApprovalBatch.conflicts).toEqual([
      {
        callId: a.id,
        status: 'DENIED',
        message: `tool call ${a.id} is no longer awaiting approval (it is DENIED)`,
      },
    ]);
    expect(res.data!.decideApprovalBatch.decided.map((c: Json) => [c.id, c.status])).toEqual([
      [b.id, 'APPROVED'],
    ]);
  });

  test('concurrent batches and single decisions decide each call exactly once', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const texts = Array.from({ length: 6 }, (_, i) => `t${i}`);
    const { turn, toolCalls } = await loop.submit(runId, 'OPENAI_CHAT', turnOf('t1', texts));
    const held = (toolCalls as Json[]).slice(1);
    const batches = Array.from({ length: 4 }, (_, i) =>
      gql(
        DECIDE,
        { turnId: turn.id, input: { all: i % 2 ? 'DENY' : 'APPROVE' } },
        i % 2 ? tokens.ADMIN : tokens.APPROVER,
      ),
    );
    const singles = held.map((c, i) =>
      (i % 2 ? services.calls.deny(c.id, {}, admin) : services.calls.approve(c.id, {}, approver)).then(
        (row) => row.id,
        () => null,
      ),
    );
    const [batchResults, singleResults] = await Promise.all([Promise.all(batches), Promise.all(singles)]);
    const decidedBy = new Map<string, number>();
    const count = (id: string) => decidedBy.set(id, (decidedBy.get(id) ?? 0) + 1);
    for (const res of batchResults) {
      expect(res.errors).toBeUndefined();
      const { decided, conflicts } = res.data!.decideApprovalBatch;
      for (const c of decided) count(c.id);
      expect(decided.length + conflicts.length).toBeLessThanOrEqual(held.length);
    }
    for (const id of singleResults) if (id) count(id);
    expect(held.map((c) => decidedBy.get(c.id))).toEqual(Array(held.length).fill(1));
    for (const c of held) {
      const decisions = (await eventTypes(services, { callId: c.id })).filter(
        (t) => t === 'tool_call_approved' || t === 'tool_call_denied',
      );
      expect(decisions).toHaveLength(1);
    }
  });

  test('a call listed that is not of the turn is BAD_USER_INPUT and nothing is decided', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const first = await loop.submit(runId, 'OPENAI_CHAT', turnOf('t1', ['a']));
    const second = await loop.submit(runId, 'OPENAI_CHAT', turnOf('t2', ['b']));
    const res = await gql(
      DECIDE,
      {
        turnId: first.turn.id,
        input: { all: 'APPROVE', decisions: [{ id: second.toolCalls[1].id, verdict: 'DENY' }] },
      },
      tokens.APPROVER,
    );
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect((await services.calls.get(first.toolCalls[1].id))!.status).toBe('AWAITING_APPROVAL');
  });

  test('a turn of a run outside the approver’s users is null, and deciding it NOT_FOUND', async ({
    services,
    gql,
    loopRun: { loop, runId },
  }) => {
    const { turn } = await loop.submit(runId, 'OPENAI_CHAT', turnOf('t1', ['a']));
    const stranger = await services.tokens.create({ name: 'carol', role: 'APPROVER', users: ['carol'] });
    expect((await gql(BATCH, { turnId: turn.id }, stranger.secret)).data!.approvalBatch).toBeNull();
    const res = await gql(DECIDE, { turnId: turn.id, input: { all: 'APPROVE' } }, stranger.secret);
    expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});
