import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { admin, approver } from '../../support/lifecycle.js';
import {
  pendingEcho,
  RETRY,
  SECRET,
  startNotifyingServices,
  notifyTest as test,
} from '../../support/notifications.js';
import { signatureVerifies } from '../../support/webhook-receiver.js';

const CONSOLE = 'https://console.example/ats';

async function addTarget(services: Services, input: Record<string, unknown>) {
  return services.notifications.targets.create(
    { name: 'ops', kind: 'WEBHOOK', events: ['APPROVAL_REQUESTED'], ...input },
    'admin:test',
  );
}

const journalOf = async (services: Services, callId: string) =>
  (await services.journal.read({ callId, limit: 100 })).filter((e) => e.type.startsWith('notification_'));

describe('generic webhook', () => {
  test('an approval request is POSTed as JSON, signed with the target’s secret over timestamp and body', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const target = await addTarget(services, {
      url: `${receiver.url}/hook`,
      secret: SECRET,
      consoleUrl: CONSOLE,
    });
    const call = await pendingEcho(services, run);
    await services.notifier.sweep();

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.path).toBe('/hook');
    expect(signatureVerifies(SECRET, request!)).toBe(true);
    expect(signatureVerifies('another-secret-0123456789', request!)).toBe(false);
    expect(
      signatureVerifies(SECRET, { ...request!, body: request!.body.replace('test.echo', 'test.evil') }),
    ).toBe(false);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-ats-event': 'APPROVAL_REQUESTED',
      'x-ats-delivery': request!.json.deliveryId,
      'x-ats-timestamp': String(Math.floor(clock.now().getTime() / 1000)),
    });
    expect(request!.json).toEqual({
      deliveryId: expect.any(String),
      event: 'APPROVAL_REQUESTED',
      journalEvent: 'tool_call_awaiting_approval',
      seq: expect.stringMatching(/^\d+$/),
      occurredAt: expect.any(String),
      call: {
        id: call.id,
        runId: run.id,
        userId: 'u1',
        tool: 'test.echo',
        title: expect.any(String),
        approvalMessage: null,
        status: 'AWAITING_APPROVAL',
        argumentsHash: call.argumentsHash,
        approvalExpiresAt: null,
      },
      decision: null,
      warnings: [],
      link: {
        url: expect.stringMatching(
          new RegExp(`^${CONSOLE}/#/calls/${call.id}\\?link=[0-9a-f-]{36}\\.[A-Za-z0-9_-]{43}$`),
        ),
        expiresAt: expect.any(String),
      },
    });
    const [delivery] = await services.notifications.deliveries({ targetId: target.id });
    expect(delivery).toMatchObject({
      id: request!.json.deliveryId,
      status: 'DELIVERED',
      attempts: 1,
      lastStatusCode: 200,
    });
  });

  test('without a secret the body goes unsigned, and without a console URL it carries no link', async ({
    services,
    run,
    receiver,
  }) => {
    await addTarget(services, { url: receiver.url });
    await pendingEcho(services, run);
    await services.notifier.sweep();
    expect(receiver.received[0]!.headers['x-ats-signature']).toBeUndefined();
    expect(receiver.received[0]!.json.link).toBeNull();
  });

  test('a 500 is retried after the back-off, with the same body, then delivered', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const target = await addTarget(services, { url: receiver.url, secret: SECRET });
    receiver.answerNext(500);
    const call = await pendingEcho(services, run);
    await services.notifier.sweep();

    const [failed] = await services.notifications.deliveries({ targetId: target.id });
    expect(failed).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
    });
    expect(failed!.nextAttemptAt.getTime() - failed!.lastAttemptAt!.getTime()).toBe(RETRY.baseDelayMs);

    // Not yet due: a sweep before the back-off has passed sends nothing.
    clock.advance(RETRY.baseDelayMs - 1);
    await services.notifier.sweep();
    expect(receiver.received).toHaveLength(1);

    clock.advance(1);
    await services.notifier.sweep();
    expect(receiver.received.map((r) => r.answeredWith)).toEqual([500, 200]);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(signatureVerifies(SECRET, receiver.received[1]!)).toBe(true);
    const [delivered] = await services.notifications.deliveries({ targetId: target.id });
    expect(delivered).toMatchObject({
      status: 'DELIVERED',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
    });

    expect((await journalOf(services, call.id)).map((e) => [e.type, e.payload])).toEqual([
      [
        'notification_failed',
        {
          deliveryId: delivered!.id,
          targetId: target.id,
          target: 'ops',
          event: 'APPROVAL_REQUESTED',
          attempt: 1,
          statusCode: 500,
          error: 'HTTP 500',
          final: false,
          nextAttemptAt: failed!.nextAttemptAt.toISOString(),
        },
      ],
      [
        'notification_delivered',
        {
          deliveryId: delivered!.id,
          targetId: target.id,
          target: 'ops',
          event: 'APPROVAL_REQUESTED',
          attempt: 2,
          statusCode: 200,
        },
      ],
    ]);
  });

  test('the back-off doubles, and after the last attempt the delivery is FAILED for good', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const target = await addTarget(services, { url: receiver.url });
    receiver.answerNext(503, 503, 503);
    const call = await pendingEcho(services, run);
    await services.notifier.sweep();
    clock.advance(RETRY.baseDelayMs);
    await services.notifier.sweep();
    const [second] = await services.notifications.deliveries({ targetId: target.id });
    expect(second!.nextAttemptAt.getTime() - second!.lastAttemptAt!.getTime()).toBe(2 * RETRY.baseDelayMs);
    clock.advance(2 * RETRY.baseDelayMs);
    await services.notifier.sweep();
    clock.advance(RETRY.maxDelayMs);
    await services.notifier.sweep();

    expect(receiver.received).toHaveLength(RETRY.maxAttempts);
    const [last] = await services.notifications.deliveries({ targetId: target.id });
    expect(last).toMatchObject({ status: 'FAILED', attempts: 3, lastStatusCode: 503 });
    expect((await journalOf(services, call.id)).map((e) => [e.payload.attempt, e.payload.final])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
  });

  test('a receiver that is down is retried like an error status, and the error names no URL', async ({
    services,
    run,
    receiver,
  }) => {
    const target = await addTarget(services, { url: receiver.url });
    await receiver.close();
    await pendingEcho(services, run);
    await services.notifier.sweep();
    const [delivery] = await services.notifications.deliveries({ targetId: target.id });
    expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: null });
    expect(delivery!.lastError).toMatch(/^request failed/);
    expect(delivery!.lastError).not.toContain('127.0.0.1');
  });

  test('a decision is CALL_DECIDED with who decided and why, and carries no link', async ({
    services,
    run,
    receiver,
  }) => {
    await addTarget(services, { url: receiver.url, events: ['CALL_DECIDED'], consoleUrl: CONSOLE });
    const call = await pendingEcho(services, run);
    await services.calls.deny(call.id, { reason: 'not today' }, approver);
    await services.notifier.sweep();
    expect(
      receiver.received.map((r) => [r.json.event, r.json.journalEvent, r.json.decision, r.json.link]),
    ).toEqual([
      [
        'CALL_DECIDED',
        'tool_call_denied',
        { outcome: 'DENIED', by: 'approver:alice', reason: 'not today' },
        null,
      ],
    ]);
  });

  test('a target is told only the events it subscribed to, and a disabled one nothing', async ({
    services,
    run,
    receiver,
  }) => {
    await addTarget(services, { url: `${receiver.url}/decided`, events: ['CALL_DECIDED'] });
    const off = await addTarget(services, { name: 'off', url: `${receiver.url}/off` });
    await services.notifications.targets.update(off.id, { enabled: false }, 'admin:test');
    const call = await pendingEcho(services, run);
    await services.notifier.sweep();
    expect(receiver.received).toEqual([]);
    await services.calls.approve(call.id, {}, admin);
    await services.notifier.sweep();
    expect(receiver.received.map((r) => [r.path, r.json.decision.outcome])).toEqual([
      ['/decided', 'APPROVED'],
    ]);
  });

  test('an approval request for a call decided before it was enqueued is not sent', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    await addTarget(services, { url: receiver.url, events: ['APPROVAL_REQUESTED', 'CALL_DECIDED'] });
    await services.notifier.stop();
    const call = await pendingEcho(services, run);
    await services.calls.approve(call.id, {}, approver);
    const other = await startNotifyingServices(services.database, clock);
    try {
      await other.notifier.sweep();
    } finally {
      await other.stop();
    }
    expect(receiver.received.map((r) => r.json.event)).toEqual(['CALL_DECIDED']);
  });
});

describe('expiry warnings', () => {
  test('a tool_call_expiring warning is APPROVAL_EXPIRING, with a link that expires with the call', async ({
    services,
    run,
    receiver,
  }) => {
    await services.policy.set(
      {
        layer: 'USER',
        scopeId: 'u1',
        toolPattern: 'test.echo',
        effect: 'ASK',
        budget: { approvalTimeoutMs: 30_000 },
      },
      admin,
    );
    await addTarget(services, { url: receiver.url, events: ['APPROVAL_EXPIRING'], consoleUrl: CONSOLE });
    const call = await pendingEcho(services, run);
    await services.dispatcher.expireApprovals();
    await services.notifier.sweep();
    expect(receiver.received.map((r) => [r.json.event, r.json.journalEvent, r.json.link.expiresAt])).toEqual([
      ['APPROVAL_EXPIRING', 'tool_call_expiring', call.approvalExpiresAt!.toISOString()],
    ]);
  });
});

describe('chat webhook', () => {
  test('gets Slack’s { text }: what is asked, for whom, and the one-time console link', async ({
    services,
    run,
    receiver,
  }) => {
    await addTarget(services, {
      name: 'slack',
      kind: 'CHAT_WEBHOOK',
      url: receiver.url,
      consoleUrl: CONSOLE,
    });
    const call = await pendingEcho(services, run);
    await services.notifier.sweep();
    const [request] = receiver.received;
    expect(Object.keys(request!.json)).toEqual(['text']);
    const lines = request!.json.text.split('\n');
    expect(lines).toEqual([
      `*Approval needed*: \`test.echo\` for u1 (run ${run.id})`,
      expect.stringMatching(
        new RegExp(
          `^<${CONSOLE}/#/calls/${call.id}\\?link=[0-9a-f-]{36}\\.[A-Za-z0-9_-]{43}\\|Open in the console> \\(one-time link\\)$`,
        ),
      ),
    ]);
  });

  test('escapes what people and models wrote, so it cannot forge a link or a mention', async ({
    services,
    run,
    receiver,
  }) => {
    await addTarget(services, {
      name: 'slack',
      kind: 'CHAT_WEBHOOK',
      url: receiver.url,
      events: ['CALL_DECIDED'],
    });
    const call = await pendingEcho(services, run);
    await services.calls.deny(call.id, { reason: '<https://evil.example|click> & <!channel>' }, approver);
    await services.notifier.sweep();
    expect(receiver.received[0]!.json.text.split('\n')[1]).toBe(
      'DENIED by approver:alice: &lt;https://evil.example|click&gt; &amp; &lt;!channel&gt;',
    );
  });
});
