import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import {
  card,
  cardIds,
  saveScreenshot,
  signIn,
  skipBrowserTests,
  browserTest as test,
  waitForCards,
  waitForConnection,
} from './support.js';

const queueCount = async (page: Page) =>
  (await page.locator('[data-testid=queue-count]').textContent())?.trim();

describe.skipIf(skipBrowserTests)('the approval queue in the console', () => {
  test('a call requested through the API appears in two approvers’ consoles; one approves with a reason; the card leaves the other; the run’s journal names the decision and who made it', async ({
    api,
    consoles,
  }) => {
    const ann = await api.token('ann', 'APPROVER', ['two-approvers']);
    const ben = await api.token('ben', 'APPROVER', ['two-approvers']);
    const annPage = await consoles.open(ann);
    const benPage = await consoles.open(ben);
    await Promise.all([waitForConnection(annPage, 'connected'), waitForConnection(benPage, 'connected')]);
    await annPage.locator('[data-testid=queue-empty]').waitFor();

    const call = await api.pendingCall('two-approvers', 'shared call');
    await Promise.all([waitForCards(annPage, [call.id]), waitForCards(benPage, [call.id])]);
    expect(await cardIds(annPage)).toEqual([call.id]);
    expect(await cardIds(benPage)).toEqual([call.id]);
    expect(await card(benPage, call.id).locator('[data-testid=tool-name]').textContent()).toContain(
      'test.echo',
    );

    await card(annPage, call.id).locator('[data-testid=reason-input]').fill('checked by ann');
    await card(annPage, call.id).locator('[data-testid=approve]').click();
    await Promise.all([waitForCards(benPage, []), waitForCards(annPage, [])]);
    expect(await cardIds(benPage)).toEqual([]);
    expect(await cardIds(annPage)).toEqual([]);

    const decided = await api.must(
      `query($id: ID!, $run: ID!) {
        toolCall(id: $id) { decision { approved decidedBy reason } }
        journal(runId: $run, first: 100) { edges { node { type actor callId } } } }`,
      { id: call.id, run: call.runId },
    );
    expect(decided.toolCall.decision).toEqual({
      approved: true,
      decidedBy: 'approver:ann',
      reason: 'checked by ann',
    });
    const approvals = decided.journal.edges
      .map((e: { node: { type: string } }) => e.node)
      .filter((event: { type: string }) => event.type === 'TOOL_CALL_APPROVED');
    expect(approvals).toEqual([{ type: 'TOOL_CALL_APPROVED', actor: 'approver:ann', callId: call.id }]);

    await benPage.goto(`${new URL(benPage.url()).origin}/#/runs/${call.runId}`);
    await benPage.locator(`[data-testid=run-view][data-run-id="${call.runId}"]`).waitFor();
    const approvedEvent = benPage.locator('[data-testid=journal-event][data-type=TOOL_CALL_APPROVED]');
    await approvedEvent.waitFor();
    expect(await approvedEvent.count()).toBe(1);
    const decision = benPage.locator(
      `[data-testid=run-call][data-call-id="${call.id}"] [data-testid=decision]`,
    );
    await decision.waitFor();
    expect(await decision.textContent()).toContain('ann');
    expect(await decision.textContent()).toContain('checked by ann');
  });

  test('a viewer sees the queue and no approve or deny button, and the API refuses its approveToolCall with FORBIDDEN', async ({
    api,
    consoles,
  }) => {
    const viewer = await api.token('vera', 'VIEWER', ['watched-user']);
    const call = await api.pendingCall('watched-user', 'only watched');
    const page = await consoles.open(viewer);
    await waitForCards(page, [call.id]);

    expect(await cardIds(page)).toEqual([call.id]);
    expect(await page.locator('[data-testid=whoami]').textContent()).toContain('VIEWER');
    expect(await card(page, call.id).locator('[data-testid=approve]').count()).toBe(0);
    expect(await card(page, call.id).locator('[data-testid=deny]').count()).toBe(0);

    const refused = await api.gql(
      'mutation($id: ID!) { approveToolCall(id: $id, reason: "viewer") { id } }',
      { id: call.id },
      viewer,
    );
    expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(await api.status(call.id)).toBe('AWAITING_APPROVAL');
  });

  test('an approver bound to one user sees exactly that user’s calls, before and after the page opens, and never another user’s', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('bound-approver', 'APPROVER', ['bound-mine']);
    const mine1 = await api.pendingCall('bound-mine', 'mine 1');
    await api.pendingCall('bound-other', 'other 1');
    const mine2 = await api.pendingCall('bound-mine', 'mine 2');
    const page = await consoles.open(approver);
    await waitForCards(page, [mine1.id, mine2.id]);

    await api.pendingCall('bound-other', 'other 2');
    const mine3 = await api.pendingCall('bound-mine', 'mine 3');
    await waitForCards(page, [mine1.id, mine2.id, mine3.id]);

    expect(await cardIds(page)).toEqual([mine1.id, mine2.id, mine3.id].sort());
    expect(await queueCount(page)).toBe('3');
    expect(await page.title()).toMatch(/^\(3\) /);
    const users = await page.locator('[data-testid=call-card] [data-testid=call-user]').allTextContents();
    expect(users.map((u) => u.trim())).toEqual(['bound-mine', 'bound-mine', 'bound-mine']);
    await saveScreenshot(page, 'console-queue.png');
  });

  test('the oldest card starts selected, j moves the selection to the next one and a approves it; the other card stays', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('keys', 'APPROVER', ['keyboard-user']);
    const first = await api.pendingCall('keyboard-user', 'first');
    const second = await api.pendingCall('keyboard-user', 'second');
    const page = await consoles.open(approver);
    await waitForCards(page, [first.id, second.id]);
    const selected = page.locator('[data-testid=call-card][aria-current=true]');
    expect(await selected.getAttribute('data-call-id')).toBe(first.id);

    // Shortcuts belong to the page, not to a text field that kept the focus.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('j');
    await page.locator(`[data-testid=call-card][data-call-id="${second.id}"][aria-current=true]`).waitFor();
    await page.keyboard.press('a');
    await waitForCards(page, [first.id]);

    expect(await cardIds(page)).toEqual([first.id]);
    expect(await api.status(first.id)).toBe('AWAITING_APPROVAL');
    const decided = await api.must(
      'query($id: ID!) { toolCall(id: $id) { decision { approved decidedBy } } }',
      {
        id: second.id,
      },
    );
    expect(decided.toolCall.decision).toEqual({ approved: true, decidedBy: 'approver:keys' });
  });

  test('with WebSockets refused the console falls back to SSE and still shows cards live', async ({
    api,
    consoles,
    server,
  }) => {
    const approver = await api.token('no-ws', 'APPROVER', ['sse-user']);
    const context = await consoles.context();
    const sockets: string[] = [];
    // Stands for a proxy that refuses the upgrade: every WebSocket closes before the server sees it,
    // with 1006 (abnormal closure), what a browser reports for a refused handshake.
    await context.routeWebSocket(/.*/, (ws) => {
      sockets.push(ws.url());
      void ws.close({ code: 1006, reason: 'blocked by the test' });
    });
    const streams: string[] = [];
    context.on('request', (request) => {
      if ((request.headers().accept ?? '').includes('text/event-stream')) streams.push(request.url());
    });
    const page = await context.newPage();
    await signIn(page, server.origin, approver);
    await waitForConnection(page, 'connected');

    const call = await api.pendingCall('sse-user', 'over sse');
    await waitForCards(page, [call.id]);

    expect(await cardIds(page)).toEqual([call.id]);
    expect(sockets.length).toBeGreaterThan(0);
    expect(streams.length).toBeGreaterThan(0);
  });
});
