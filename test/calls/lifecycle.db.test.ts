import { describe, expect } from 'vitest';
import { runTest as test } from '../support/fixtures.js';
import { admin, agent, allow, approver, eventTypes, newRun, waitFor } from '../support/lifecycle.js';

describe('tool call lifecycle, event by event', () => {
  test('an auto-allowed call runs at once and completes', async ({ services, run }) => {
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'hi' } },
      agent,
    );
    expect(call.status).toBe('COMPLETED');
    expect(call.result).toMatchObject({
      content: [{ type: 'text', text: 'hi' }],
      structured: { echoed: 'hi' },
      isError: false,
    });
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });

  test('a call that needs approval waits, is approved, then runs', async ({ services }) => {
    await allow(services, 'test.*');
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const run = await newRun(services);
    const held = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'x' } },
      agent,
    );
    expect(held.status).toBe('AWAITING_APPROVAL');
    await services.calls.approve(held.id, { reason: 'fine', argumentsHash: held.argumentsHash }, approver);
    const done = await waitFor(async () => {
      const c = await services.calls.get(held.id);
      return c?.status === 'COMPLETED' && c;
    });
    expect(done.decision).toMatchObject({
      approved: true,
      decidedBy: 'approver:alice',
      reason: 'fine',
      argumentsHash: held.argumentsHash,
    });
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approved',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });

  test('a denied call never runs and gives the model a denied result', async ({ services, run }) => {
    const held = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    expect(held.status).toBe('AWAITING_APPROVAL');
    expect(held.policyReason).toMatch(/destructive tools need approval/);
    const denied = await services.calls.deny(held.id, { reason: 'not now' }, approver);
    expect(denied.status).toBe('DENIED');
    expect(denied.error).toMatchObject({ kind: 'POLICY_DENIED', code: 'approval_denied' });
    expect(denied.result!.isError).toBe(true);
    expect(denied.result!.content[0]).toEqual({
      type: 'text',
      text: 'A person (approver:alice) denied the call to test.dangerous: not now. Do not retry it unchanged.',
    });
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_denied',
    ]);
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
  });

  test('an approval nobody gives in time ends EXPIRED, not denied', async ({ services }) => {
    await allow(services, 'test.*', { budget: { approvalTimeoutMs: 50 } });
    const run = await newRun(services);
    const held = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    expect(held.approvalExpiresAt).not.toBeNull();
    const expired = await waitFor(async () => {
      const c = await services.calls.get(held.id);
      return c?.status === 'EXPIRED' && c;
    });
    expect(expired.decision).toBeNull();
    expect(expired.error).toMatchObject({ kind: 'RECOVERABLE', code: 'approval_expired' });
    const events = await services.journal.read({ callId: held.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_expiring',
      'tool_call_expired',
    ]);
    expect(events[3]!.payload).toEqual({ expiresAt: held.approvalExpiresAt!.toISOString() });
  });

  test('invalid arguments give a recoverable result that lists what is wrong, without dispatch', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 1, extra: true } },
      agent,
    );
    expect(call.status).toBe('FAILED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_arguments' });
    expect(call.result!.content[0]).toEqual({
      type: 'text',
      text:
        'The arguments for test.echo do not match its input schema:\n' +
        '- (root): must NOT have additional properties (extra)\n' +
        '- /text: must be string\n' +
        'Fix them and call the tool again.',
    });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_failed',
    ]);
  });

  test('a call beyond the run budget is a recoverable budget_exhausted result', async ({ services }) => {
    await allow(services);
    const run = await newRun(services, { maxCallsPerTool: 1 });
    await services.calls.request({ runId: run.id, name: 'test.noop' }, agent);
    const second = await services.calls.request({ runId: run.id, name: 'test.noop' }, agent);
    expect(second.error).toMatchObject({ kind: 'RECOVERABLE', code: 'budget_exhausted' });
    expect(await eventTypes(services, { callId: second.id })).toEqual([
      'tool_call_requested',
      'tool_call_failed',
    ]);
    const other = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'a' } },
      agent,
    );
    expect(other.status).toBe('COMPLETED');
  });

  test('a call over its timeout is abandoned with a recoverable timeout result', async ({ services }) => {
    await allow(services, 'test.*', { budget: { timeoutMs: 100 } });
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'test.sleep', arguments: { ms: 5000 } },
      agent,
    );
    expect(call.status).toBe('FAILED');
    expect(call.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'timeout',
      message:
        'The call to test.sleep did not finish within 100 ms and was abandoned. Try a smaller request or continue without it.',
    });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
    ]);
  });

  test('an answer its executor accepted as the deadline passed is applied, not dropped', async ({
    services,
  }) => {
    await allow(services, 'test.*', { budget: { timeoutMs: 100 } });
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'test.answers_at_deadline', arguments: {} },
      agent,
    );
    expect(call.status).toBe('COMPLETED');
    expect(call.result?.content).toEqual([{ type: 'text', text: 'answered in time' }]);
  });

  test('a policy violation fails the run under FAIL_RUN', async ({ services }) => {
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'a' } },
      agent,
    );
    expect(call.error).toMatchObject({ kind: 'POLICY_DENIED', code: 'tool_not_available' });
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'policy_violation',
      'tool_call_failed',
      'run_failed',
    ]);
    const failedRun = (await services.runs.get(run.id))!;
    expect(failedRun.status).toBe('FAILED');
    expect(failedRun.failure).toEqual(call.error);
  });

  test('a policy violation gives a readable denied result under RETURN_DENIED_RESULT and the run goes on', async ({
    services,
  }) => {
    const run = await newRun(services, { deniedToolStrategy: 'RETURN_DENIED_RESULT' });
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'a' } },
      agent,
    );
    expect(call.result!.isError).toBe(true);
    expect(call.result!.content[0]).toEqual({
      type: 'text',
      text: 'The tool test.echo is not available to you: no rule allows this tool (tools are invisible by default). Do not call it again; continue without it.',
    });
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'policy_violation',
      'tool_call_failed',
    ]);
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
  });

  test('an unknown tool is a policy violation', async ({ services }) => {
    const run = await newRun(services, { deniedToolStrategy: 'RETURN_DENIED_RESULT' });
    const call = await services.calls.request({ runId: run.id, name: 'no.such_tool' }, agent);
    expect(call.error).toMatchObject({ kind: 'POLICY_DENIED', code: 'unknown_tool' });
    const events = await services.journal.read({ callId: call.id, limit: 10 });
    expect(events[1]).toMatchObject({
      type: 'policy_violation',
      payload: { tool: 'no.such_tool', reason: 'unknown tool' },
    });
  });

  test('a system failure fails the call and the run', async ({ services, run }) => {
    const call = await services.calls.request({ runId: run.id, name: 'test.fail_system' }, agent);
    expect(call.error).toEqual({
      kind: 'SYSTEM_FAILURE',
      code: 'path_escape',
      message: 'The path leaves the workspace.',
    });
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
      'run_failed',
    ]);
    expect((await services.runs.get(run.id))!.failure).toEqual(call.error);
  });

  test('a recoverable tool error is a result the model reads, and the run goes on', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request({ runId: run.id, name: 'test.fail_recoverable' }, agent);
    expect(call.status).toBe('FAILED');
    expect(call.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'no_hits',
      message: 'Nothing matched; try another query.',
    });
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
  });

  test('output that breaks the output schema is a recoverable invalid_output error', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request({ runId: run.id, name: 'test.typed' }, agent);
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_output' });
  });

  test('a tool that finishes the run completes it', async ({ services, run }) => {
    await services.calls.request({ runId: run.id, name: 'test.finish' }, agent);
    expect((await services.runs.get(run.id))!.status).toBe('COMPLETED');
    expect((await eventTypes(services, { runId: run.id })).at(-1)).toBe('run_completed');
  });
});

describe('repeats and decisions', () => {
  test('a repeated providerCallId returns the same call and runs it once', async ({ services, run }) => {
    const first = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'a' }, providerCallId: 'call_1' },
      agent,
    );
    const again = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'a' }, providerCallId: 'call_1' },
      agent,
    );
    expect(again.id).toBe(first.id);
    expect(
      (await eventTypes(services, { runId: run.id })).filter((t) => t === 'tool_call_requested'),
    ).toHaveLength(1);
  });

  test('the same idempotency key with other arguments is a CONFLICT', async ({ services, run }) => {
    await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'a' }, idempotencyKey: 'k' },
      agent,
    );
    await expect(
      services.calls.request(
        { runId: run.id, name: 'test.echo', arguments: { text: 'b' }, idempotencyKey: 'k' },
        agent,
      ),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  test('the same arguments with keys in another order are the same call', async ({ services, run }) => {
    const a = await services.calls.request(
      { runId: run.id, name: 'test.sleep', arguments: { ms: 0 }, idempotencyKey: 'k' },
      agent,
    );
    const b = await services.calls.request(
      { runId: run.id, name: 'test.sleep', arguments: { ms: 0 }, idempotencyKey: 'k' },
      agent,
    );
    expect(b.id).toBe(a.id);
  });

  test('a second decision is a CONFLICT and changes nothing', async ({ services, run }) => {
    const held = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    await services.calls.deny(held.id, { reason: 'no' }, approver);
    await expect(services.calls.approve(held.id, {}, admin)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await services.calls.get(held.id))!.status).toBe('DENIED');
    expect(
      (await eventTypes(services, { callId: held.id })).filter(
        (t) => t.startsWith('tool_call_d') || t === 'tool_call_approved',
      ),
    ).toEqual(['tool_call_denied']);
  });

  test('a decision on arguments other than those stored is a CONFLICT', async ({ services, run }) => {
    const held = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    await expect(
      services.calls.approve(held.id, { argumentsHash: 'f'.repeat(64) }, approver),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await services.calls.get(held.id))!.status).toBe('AWAITING_APPROVAL');
  });

  test('cancelling a run cancels its pending approvals, each with a readable result', async ({
    services,
    run,
  }) => {
    const held = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    await services.runs.cancel(run.id, agent);
    const call = (await services.calls.get(held.id))!;
    expect(call.status).toBe('CANCELLED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'cancelled' });
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_cancelled',
      'run_cancelled',
    ]);
    await expect(services.calls.approve(held.id, {}, approver)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  test('a call in a finished run is a CONFLICT', async ({ services, run }) => {
    await services.runs.complete(run.id, agent);
    await expect(services.calls.request({ runId: run.id, name: 'test.noop' }, agent)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });
});

describe('results', () => {
  test('large output is stored once as a resource and referenced', async ({ services, gql, tokens, run }) => {
    const call = await services.calls.request(
      { runId: run.id, name: 'test.big', arguments: { chars: 40_000 } },
      agent,
    );
    const [preview, ref] = call.result!.content;
    expect(preview!.type).toBe('text');
    expect(ref).toMatchObject({ type: 'resource_ref', mimeType: 'text/plain; charset=utf-8' });
    expect(call.result!.resourceRefs).toEqual([(ref as { uri: string }).uri]);
    const res = await gql(
      `query($uri: String!) { resource(uri: $uri) { size text } }`,
      { uri: (ref as { uri: string }).uri },
      tokens.VIEWER,
    );
    expect(res.data!.resource).toEqual({ size: 40_000, text: 'x'.repeat(40_000) });
    const events = await services.journal.read({ callId: call.id, limit: 10 });
    expect(JSON.stringify(events.map((e) => e.payload)).length).toBeLessThan(2000);
  });

  test('text over the output token budget is cut to a preview with the full output as a resource', async ({
    services,
  }) => {
    await allow(services, 'test.*', { budget: { maxOutputTokens: 10 } });
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'word '.repeat(200) } },
      agent,
    );
    const [preview, ref] = call.result!.content;
    expect((preview as { text: string }).text).toMatch(
      /\[output cut to 10 of \d+ tokens; the full output is resource:\/\/sha256\/[0-9a-f]{64}\]$/,
    );
    expect(ref!.type).toBe('resource_ref');
    expect(call.result!.usage!.outputTokens).toBe(10);
  });

  test('an agent cannot read a resource of a run it did not create', async ({
    services,
    gql,
    tokens,
    run,
  }) => {
    const call = await services.calls.request(
      { runId: run.id, name: 'test.big', arguments: { chars: 40_000 } },
      agent,
    );
    const uri = call.result!.resourceRefs[0];
    const res = await gql(`query($uri: String!) { resource(uri: $uri) { size } }`, { uri }, tokens.AGENT);
    expect(res.data!.resource).toBeNull();
  });
});
