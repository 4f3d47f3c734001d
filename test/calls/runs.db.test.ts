import { describe, expect } from 'vitest';
import { dbTest as test } from '../support/fixtures.js';
import { admin } from '../support/lifecycle.js';

const allowTests = async (services: import('../../src/app/services.js').Services) =>
  services.policy.set({ layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.*', effect: 'ALLOW' }, admin);

describe('runs and calls over GraphQL', () => {
  test('an agent creates a run, requests a call and reads a typed result', async ({
    gql,
    tokens,
    services,
  }) => {
    await allowTests(services);
    const run = await gql(
      'mutation { createRun(input: { profileId: "p1", maxCalls: 3 }) { id status deniedToolStrategy } }',
      {},
      tokens.AGENT,
    );
    expect(run.data!.createRun).toMatchObject({ status: 'RUNNING', deniedToolStrategy: 'FAIL_RUN' });
    const runId = run.data!.createRun.id;
    const call = await gql(
      `mutation($runId: ID!) { requestToolCall(input: { runId: $runId, name: "test.echo", arguments: { text: "hello" }, providerCallId: "call_9" }) {
        status providerCallId result { isError structured content { __typename ... on TextPart { text } } } events { type } } }`,
      { runId },
      tokens.AGENT,
    );
    expect(call.data!.requestToolCall).toEqual({
      status: 'COMPLETED',
      providerCallId: 'call_9',
      result: {
        isError: false,
        structured: { echoed: 'hello' },
        content: [{ __typename: 'TextPart', text: 'hello' }],
      },
      events: [
        { type: 'TOOL_CALL_REQUESTED' },
        { type: 'TOOL_CALL_STARTED' },
        { type: 'TOOL_CALL_COMPLETED' },
      ],
    });
    const view = await gql(
      `query($id: ID!) { run(id: $id) { effectiveTools { tool { name } remainingCalls } } }`,
      { id: runId },
      tokens.AGENT,
    );
    const echo = view.data!.run.effectiveTools.find(
      (t: { tool: { name: string } }) => t.tool.name === 'test.echo',
    );
    expect(echo.remainingCalls).toBe(2);
  });

  test('an approval UI sees what it must show, and the decision is bound to the arguments hash', async ({
    gql,
    tokens,
    services,
  }) => {
    await allowTests(services);
    const runId = (await gql('mutation { createRun(input: { profileId: "p1" }) { id } }', {}, tokens.AGENT))
      .data!.createRun.id;
    await gql(
      `mutation($runId: ID!) { requestToolCall(input: { runId: $runId, name: "test.dangerous" }) { id } }`,
      { runId },
      tokens.AGENT,
    );
    const pending = await gql(
      `{ pendingApprovals { edges { node { id approvalRequest { toolName title argumentsSummary argumentsHash source policyReason
        annotations { readOnly destructive idempotent openWorld } } } } } }`,
      {},
      tokens.APPROVER,
    );
    const node = pending.data!.pendingApprovals.edges[0].node;
    expect(node.approvalRequest).toMatchObject({
      toolName: 'test.dangerous',
      title: 'test.dangerous',
      argumentsSummary: '{}',
      source: 'BUILT_IN',
      annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    });
    expect(node.approvalRequest.policyReason).toMatch(/destructive tools need approval by default/);
    const decided = await gql(
      `mutation($id: ID!, $hash: String) { approveToolCall(id: $id, reason: "ok", argumentsHash: $hash) { decision { approved decidedBy reason argumentsHash } } }`,
      { id: node.id, hash: node.approvalRequest.argumentsHash },
      tokens.APPROVER,
    );
    expect(decided.data!.approveToolCall.decision).toEqual({
      approved: true,
      decidedBy: 'approver:test-approver',
      reason: 'ok',
      argumentsHash: node.approvalRequest.argumentsHash,
    });
    const again = await gql(
      `mutation($id: ID!) { denyToolCall(id: $id) { id } }`,
      { id: node.id },
      tokens.ADMIN,
    );
    expect(again.errors![0]!.extensions).toMatchObject({ code: 'CONFLICT' });
  });

  test('an agent reads only the runs it created', async ({ gql, tokens, services }) => {
    const { secret } = await services.tokens.create({
      name: 'other-agent',
      role: 'AGENT',
      userId: 'u1',
      profiles: ['*'],
    });
    const mine = (await gql('mutation { createRun(input: {}) { id } }', {}, tokens.AGENT)).data!.createRun.id;
    await gql('mutation { createRun(input: {}) { id } }', {}, secret);
    const listed = await gql('{ runs { edges { node { id } } } }', {}, tokens.AGENT);
    expect(listed.data!.runs.edges).toEqual([{ node: { id: mine } }]);
    const theirs = (await gql('{ runs { edges { node { id } } } }', {}, tokens.ADMIN)).data!.runs.edges;
    expect(theirs).toHaveLength(2);
    const other = theirs.find((e: { node: { id: string } }) => e.node.id !== mine).node.id;
    expect((await gql(`{ run(id: "${other}") { id } }`, {}, tokens.AGENT)).data!.run).toBeNull();
    const journal = await gql(`{ journal(runId: "${other}") { edges { node { seq } } } }`, {}, tokens.AGENT);
    expect(journal.errors![0]!.extensions!.code).toBe('FORBIDDEN');
    const own = await gql(`{ journal(runId: "${mine}") { edges { node { type } } } }`, {}, tokens.AGENT);
    expect(own.data!.journal.edges).toEqual([{ node: { type: 'RUN_STARTED' } }]);
  });

  test('runs page newest first with stable cursors', async ({ gql, tokens }) => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push((await gql('mutation { createRun(input: {}) { id } }', {}, tokens.AGENT)).data!.createRun.id);
    const first = await gql(
      '{ runs(first: 2) { edges { node { id } } pageInfo { endCursor hasNextPage } } }',
      {},
      tokens.AGENT,
    );
    const rest = await gql(
      `query($after: String) { runs(first: 10, after: $after) { edges { node { id } } pageInfo { hasNextPage } } }`,
      { after: first.data!.runs.pageInfo.endCursor },
      tokens.AGENT,
    );
    const seen = [...first.data!.runs.edges, ...rest.data!.runs.edges].map(
      (e: { node: { id: string } }) => e.node.id,
    );
    expect(seen).toEqual([...ids].reverse());
    expect(rest.data!.runs.pageInfo.hasNextPage).toBe(false);
  });

  test('journal pages by position', async ({ gql, tokens, services }) => {
    for (let i = 0; i < 3; i += 1) await gql('mutation { createRun(input: {}) { id } }', {}, tokens.AGENT);
    const stored = (await services.journal.read({ limit: 10 })).map((e) => String(e.seq));
    const page = await gql(
      '{ journal(first: 2) { edges { node { seq } } pageInfo { hasNextPage endCursor } } }',
      {},
      tokens.VIEWER,
    );
    expect(page.data!.journal.edges.map((e: { node: { seq: string } }) => e.node.seq)).toEqual(
      stored.slice(0, 2),
    );
    const next = await gql(
      `{ journal(afterSeq: "${page.data!.journal.pageInfo.endCursor}") { edges { node { seq } } pageInfo { hasNextPage } } }`,
      {},
      tokens.VIEWER,
    );
    expect(next.data!.journal.edges).toEqual([{ node: { seq: stored[2] } }]);
    expect(stored).toHaveLength(3);
  });

  test('a bad afterSeq is BAD_USER_INPUT', async ({ gql, tokens }) => {
    const res = await gql('{ journal(afterSeq: "-1") { edges { node { seq } } } }', {}, tokens.VIEWER);
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });

  test('non-object arguments are BAD_USER_INPUT', async ({ gql, tokens }) => {
    const runId = (await gql('mutation { createRun(input: {}) { id } }', {}, tokens.AGENT)).data!.createRun
      .id;
    const res = await gql(
      `mutation($runId: ID!) { requestToolCall(input: { runId: $runId, name: "test.echo", arguments: [1, 2] }) { id } }`,
      { runId },
      tokens.AGENT,
    );
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toMatch(/^input\.arguments:/);
  });
});
