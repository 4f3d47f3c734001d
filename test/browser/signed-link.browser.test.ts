import { describe, expect } from 'vitest';
import { startReceiver } from '../support/webhook-receiver.js';
import { skipBrowserTests, browserTest as test, UI_TIMEOUT } from './support.js';

/** Polls `read` until it gives a value: a webhook arrives when the server's notifier gets to it. */
async function eventually<T>(what: string, read: () => T | undefined): Promise<T> {
  const deadline = Date.now() + UI_TIMEOUT;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${UI_TIMEOUT} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(skipBrowserTests)('a notification’s signed link in the console', () => {
  test('the link opens the call for a signed-in approver; the decision made there passes the link and counts once; the link then refuses another', async ({
    api,
    server,
    consoles,
  }) => {
    const receiver = await startReceiver();
    try {
      await api.must(
        'mutation($input: CreateNotificationTargetInput!) { createNotificationTarget(input: $input) { id } }',
        {
          input: {
            name: 'browser-hook',
            kind: 'WEBHOOK',
            url: receiver.url,
            events: ['APPROVAL_REQUESTED'],
            consoleUrl: server.origin,
          },
        },
      );
      const approver = await api.token('lina', 'APPROVER', ['link-user']);
      const call = await api.pendingCall('link-user', 'via a link');
      const linkUrl = await eventually('the approval_requested webhook', () =>
        receiver.received
          .map((request) => request.json?.link?.url as string | undefined)
          .find((url) => url?.includes(`/#/calls/${call.id}?link=`)),
      );
      const token = decodeURIComponent(linkUrl.slice(linkUrl.indexOf('?link=') + '?link='.length));

      const page = await consoles.open(approver, { path: `/${new URL(linkUrl).hash}` });
      await page.locator(`[data-testid=call-page][data-call-id="${call.id}"]`).waitFor();
      expect(await page.locator('[data-testid=link-info]').textContent()).toContain(
        'Opened from a signed link',
      );
      await page.locator('[data-testid=reason-input]').fill('from the chat');
      await page.locator('[data-testid=approve]').click();
      await page.locator('[data-testid=call-summary]').waitFor();
      expect(await page.locator('[data-testid=link-info]').textContent()).toContain('used at');
      await api.untilStatus(call.id, 'COMPLETED');
      expect(
        (
          await api.must('query($id: ID!) { toolCall(id: $id) { decision { decidedBy reason } } }', {
            id: call.id,
          })
        ).toolCall.decision,
      ).toEqual({
        decidedBy: 'approver:lina',
        reason: 'from the chat',
      });

      const again = await api.gql(
        'mutation($id: ID!, $link: String) { denyToolCall(id: $id, link: $link) { id } }',
        { id: call.id, link: token },
        approver,
      );
      expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    } finally {
      await receiver.close();
    }
  });
});
