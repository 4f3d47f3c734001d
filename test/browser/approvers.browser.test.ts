import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { AUTO, card, skipBrowserTests, browserTest as test, UI_TIMEOUT, waitForCards } from './support.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's serious and critical violations on the page as it is now, each with where it is. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the console's CSP rightly refuses an inline <script>.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const REASON = `query($id: ID!) { toolCall(id: $id) { policyReason } }`;

describe.skipIf(skipBrowserTests)('what approvers see is what runs', () => {
  test('signing in with an unknown or a revoked token says why it was refused, not "send a token"', async ({
    api,
    consoles,
    server,
  }) => {
    const created = await api.must(
      'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token apiToken { id } } }',
      { input: { name: 'gone', role: 'APPROVER', users: ['someone'] } },
    );
    await api.must('mutation($id: ID!) { revokeApiToken(id: $id) }', {
      id: created.createApiToken.apiToken.id,
    });
    const page = await (await consoles.context()).newPage();
    for (const [token, why] of [
      ['not-a-token-at-all', 'this token is not known to this server'],
      [created.createApiToken.token as string, 'this token was revoked'],
    ] as const) {
      await page.goto(server.origin);
      await page.locator('[data-testid=token-input]').fill(token);
      await page.locator('[data-testid=sign-in]').click();
      const error = page.locator('[data-testid=sign-in-error]');
      await error.waitFor();
      expect(await error.textContent()).toContain(why);
      expect(await error.textContent()).not.toContain('authentication required');
    }
  });

  test('at 390 px wide nothing needs scrolling sideways: the header wraps and Sign out is on screen', async ({
    api,
    consoles,
    server,
  }) => {
    const approver = await api.token('a-rather-long-approver-name-for-a-phone', 'APPROVER', [
      'phone-user-with-a-long-name',
    ]);
    const call = await api.pendingCall('phone-user-with-a-long-name', `${'a long argument '.repeat(20)}end`);
    const context = await consoles.context();
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(server.origin);
    await page.locator('[data-testid=token-input]').fill(approver);
    await page.locator('[data-testid=sign-in]').click();
    await waitForCards(page, [call.id]);
    for (const path of ['/#/', `/#/runs/${call.runId}`, `/#/calls/${call.id}`]) {
      await page.goto(`${server.origin}${path}`);
      await page.locator('[data-testid=sign-out]').waitFor();
      await page.locator('main').first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      const signOut = await page.locator('[data-testid=sign-out]').boundingBox();
      expect(signOut!.x + signOut!.width, path).toBeLessThanOrEqual(390);
      const whoami = await page.locator('[data-testid=whoami]').boundingBox();
      expect(whoami!.x + whoami!.width, path).toBeLessThanOrEqual(390);
    }
  });

  test('the run view shows how long a waiting call has waited and takes the approver to decide it', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('runner', 'APPROVER', ['run-wait-user']);
    const call = await api.pendingCall('run-wait-user', 'from the run view');
    const page = await consoles.open(approver, { path: `/#/runs/${call.runId}` });
    const row = page.locator(`[data-testid=run-call][data-call-id="${call.id}"]`);
    await row.waitFor();
    expect(await row.locator('[data-testid=run-call-waited]').textContent()).toMatch(
      /^\d+(s|m \d\ds|h \d\dm) so far$/,
    );
    await row.locator('[data-testid=decide-link]').click();
    await card(page, call.id).locator('[data-testid=approve]').click();
    await api.untilStatus(call.id, 'COMPLETED');
  });

  test('the reason a call waits is said plainly first; the rule ids and JSON are behind a closed toggle', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('reader', 'APPROVER', ['reason-user']);
    const call = await api.pendingCall('reason-user');
    const raw = (await api.must(REASON, { id: call.id })).toolCall.policyReason as string;
    const ruleId = /PROFILE rule (\S+) \(ASK/.exec(raw)![1]!;
    const page = await consoles.open(approver);
    await waitForCards(page, [call.id]);
    const reason = card(page, call.id).locator('[data-testid=policy-reason]');
    expect(await reason.textContent()).toBe(
      "A rule of this agent profile's policy asks a person to decide calls of test.*.",
    );
    const details = card(page, call.id).locator('[data-testid=policy-details]');
    expect(await details.getAttribute('open')).toBeNull();
    expect(await details.locator('summary').textContent()).toContain(ruleId);
    await details.locator('summary').click();
    expect(await details.locator('[data-testid=policy-raw]').textContent()).toBe(raw);
  });

  test('a note of a call decided here comes after the cards still waiting', async ({ api, consoles }) => {
    const approver = await api.token('noter', 'APPROVER', ['note-user']);
    const first = await api.pendingCall('note-user', 'edit me');
    const second = await api.pendingCall('note-user', 'still waiting');
    const page = await consoles.open(approver);
    await waitForCards(page, [first.id, second.id]);
    await card(page, first.id).locator('[data-testid=edit]').click();
    await card(page, first.id).locator('[data-testid=edit-arguments]').fill('{ "text": "edited" }');
    await card(page, first.id).locator('[data-testid=approve-edited]').click();
    await waitForCards(page, [second.id]);
    const note = page.locator(`[data-testid=settled-card][data-call-id="${first.id}"]`);
    await note.waitFor();
    const noteFollowsCard = await page.evaluate(
      ([cardId, noteId]) => {
        const waiting = document.querySelector(`[data-testid=call-card][data-call-id="${cardId}"]`)!;
        const settled = document.querySelector(`[data-testid=settled-card][data-call-id="${noteId}"]`)!;
        return Boolean(waiting.compareDocumentPosition(settled) & Node.DOCUMENT_POSITION_FOLLOWING);
      },
      [second.id, first.id],
    );
    expect(noteFollowsCard).toBe(true);
  });

  test('a string argument with line breaks is shown as its lines, not as escaped JSON', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('liner', 'APPROVER', ['lines-user']);
    const call = await api.pendingCall('lines-user', 'first line\nsecond line\n\tindented');
    const page = await consoles.open(approver);
    await waitForCards(page, [call.id]);
    const text = card(page, call.id).locator('[data-testid=arguments-view] [data-testid=argument-text]');
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, line breaks and all, is the point.
    expect(await text.innerText()).toBe('first line\nsecond line\n\tindented');
    expect(await card(page, call.id).locator('[data-testid=arguments-view]').textContent()).not.toContain(
      '\\n',
    );
  });

  test('invisible, bidi and mixed-script text is marked and warned of on the card, the call page and the edit form', async ({
    api,
    consoles,
    server,
  }) => {
    const approver = await api.token('looker', 'APPROVER', ['lookalike-user']);
    const call = await api.pendingCall('lookalike-user', 'report\u202Etxt.exe then d\u0435lete');
    const page = await consoles.open(approver);
    await waitForCards(page, [call.id]);
    for (const path of ['/#/', `/#/calls/${call.id}`]) {
      await page.goto(`${server.origin}${path}`);
      const shown = card(page, call.id);
      await shown.waitFor();
      expect(
        await shown.locator('[data-testid=arguments-view] [data-testid=hidden-char]').allTextContents(),
      ).toEqual(['U+202E']);
      expect(await shown.locator('[data-testid=lookalike-warning]').allTextContents()).toEqual([
        '/text: "d\u0435lete" mixes Latin and Cyrillic letters that look alike',
        '/text: holds U+202E RIGHT-TO-LEFT OVERRIDE, which reorders the text after it',
      ]);
    }
    const shown = card(page, call.id);
    await shown.locator('[data-testid=edit]').click();
    expect(await shown.locator('[data-testid=edit-arguments]').inputValue()).toBe(
      '{\n  "text": "report\\u202Etxt.exe then d\u0435lete"\n}',
    );
    // The escaped text parses back to the same arguments: nothing to approve until it changes.
    expect(await shown.locator('[data-testid=approve-edited]').isDisabled()).toBe(true);
    expect(await shown.locator('[data-testid=edit-form] [data-testid=lookalike-warning]').count()).toBe(2);
  });

  test('every page passes axe-core with no serious or critical violation', async ({
    api,
    consoles,
    server,
  }) => {
    const approver = await api.token('axe', 'APPROVER', ['axe-user']);
    const call = await api.pendingCall('axe-user', 'draft\nsecond line d\u0435lete \u202E');
    const runId = await api.run('axe-user');
    const { turnId, calls } = await api.turn(runId, [
      { name: 'test.echo', arguments: { text: 'one' } },
      { name: 'test.echo', arguments: { text: 'two' } },
    ]);
    // A run whose approved restore_checkpoint has a diff in its result: removed and added lines.
    const diffRun = await api.run('axe-user', AUTO, 'axe-workspace');
    for (const path of ['output/first.md', 'output/second.md'])
      await api.call(diffRun, 'workspace.write_file', { path, content: `${path}\n`, mode: 'create' });
    const restore = await api.call(diffRun, 'workspace.restore_checkpoint', { checkpoint: 1 });
    await api.approve(restore.id, 'undo the second file');
    await api.untilStatus(restore.id, 'COMPLETED');
    const signInPage = await (await consoles.context()).newPage();
    await signInPage.goto(server.origin);
    await signInPage.locator('[data-testid=token-input]').waitFor();
    expect(await seriousViolations(signInPage), 'sign-in').toEqual([]);

    const page = await consoles.open(approver);
    await waitForCards(page, [call.id, ...calls.map((c) => c.id)]);
    await card(page, call.id).locator('[data-testid=edit]').click();
    await card(page, call.id).locator('[data-testid=edit-arguments]').fill('{ "text": "changed" }');
    await card(page, call.id).locator('[data-testid=arguments-diff]').waitFor();
    expect(await seriousViolations(page), 'queue with the edit form and its diff').toEqual([]);

    for (const [name, path, ready] of [
      ['run view', `/#/runs/${call.runId}`, '[data-testid=run-call]'],
      ['run view with a diff', `/#/runs/${diffRun}`, '.diff .diff-del'],
      ['call page', `/#/calls/${call.id}`, '[data-testid=call-card]'],
      ['turn page', `/#/turns/${turnId}`, 'main h1'],
      ['grants page', '/#/grants', 'main h1'],
    ] as const) {
      await page.goto(`${server.origin}${path}`);
      await page.locator(ready).first().waitFor({ timeout: UI_TIMEOUT });
      expect(await seriousViolations(page), name).toEqual([]);
    }
  });

  test('a page of another site that frames the console shows none of its buttons', async ({
    consoles,
    server,
  }) => {
    const framing = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>a trap</title><iframe id="trap" src="${server.origin}/" width="800" height="600"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
    try {
      const port = (framing.address() as AddressInfo).port;
      const page = await (await consoles.context()).newPage();
      const consoleBlocked = page.waitForEvent('console', {
        predicate: (m) => /frame-ancestors|X-Frame-Options|Refused to display/i.test(m.text()),
      });
      await page.goto(`http://127.0.0.1:${port}/`);
      await consoleBlocked;
      const framed = page.frames().filter((frame) => frame !== page.mainFrame());
      expect(framed).toHaveLength(1);
      expect(
        await framed[0]!.locator('button, [data-testid=sign-in], [data-testid=token-input]').count(),
      ).toBe(0);
    } finally {
      framing.closeAllConnections();
      await new Promise<void>((resolve) => framing.close(() => resolve()));
    }
  });
});
