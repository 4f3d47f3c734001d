import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { IDP_AUDIENCE, startTestIdp, type TestIdp } from '../support/oidc-provider.js';
import {
  browserTest,
  ConsoleServer,
  card,
  signIn,
  skipBrowserTests,
  UI_TIMEOUT,
  waitForCards,
} from './support.js';

const CONSOLE_CLIENT = 'ats-console';

/** A port free now, so the IdP can know the console's redirect URI before the server starts on it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A real oidc-provider with the console as a public client, and the server accepting its tokens:
 * its `ats-approvers` are APPROVERs of every user, `ats-staff` VIEWERs.
 */
const test = browserTest.extend<{ $file: { consolePort: number; idp: TestIdp; server: ConsoleServer } }>({
  consolePort: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
    async ({}, use) => use(await freePort()),
    { scope: 'file' },
  ],
  idp: [
    async ({ consolePort }, use) => {
      const origin = `http://127.0.0.1:${consolePort}`;
      const idp = await startTestIdp({
        clients: [
          {
            client_id: CONSOLE_CLIENT,
            token_endpoint_auth_method: 'none',
            redirect_uris: [`${origin}/console/callback`],
            post_logout_redirect_uris: [`${origin}/console/`],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
      });
      try {
        await use(idp);
      } finally {
        await idp.close();
      }
    },
    { scope: 'file' },
  ],
  server: [
    async ({ idp, consolePort }, use) => {
      const claims = join(process.env.TMPDIR ?? '/tmp', `ats-sign-in-claims-${process.pid}.json`);
      writeFileSync(
        claims,
        JSON.stringify({
          roles: [
            { group: 'ats-approvers', role: 'APPROVER', allUsers: true },
            { group: 'ats-staff', role: 'VIEWER', allUsers: true },
          ],
        }),
      );
      const server = await ConsoleServer.start({
        port: consolePort,
        env: {
          OIDC_ISSUER: idp.issuer,
          OIDC_AUDIENCE: IDP_AUDIENCE,
          OIDC_CLAIMS_FILE: claims,
          OIDC_CONSOLE_CLIENT_ID: CONSOLE_CLIENT,
          OIDC_CONSOLE_RESOURCE: IDP_AUDIENCE,
        },
      });
      try {
        await use(server);
      } finally {
        await server.close();
      }
    },
    { scope: 'file' },
  ],
});

/** From the console's sign-in page through the IdP's login page (typed in, as a person does) and back. */
async function signInAtIdp(page: Page, origin: string, person: string, path = '/'): Promise<void> {
  await page.goto(`${origin}${path}`);
  await page.locator('[data-testid=sign-in-idp]').click();
  await page.locator('input[name=login]').fill(person);
  await page.locator('button[type=submit]').click();
  try {
    await page.locator('[data-testid=whoami]').waitFor({ timeout: UI_TIMEOUT });
  } catch (error) {
    // Where the flow stopped says more than the timeout: the IdP's error page, or the console's message.
    throw new Error(`not signed in at ${page.url()}: ${await page.locator('body').textContent()}`, {
      cause: error,
    });
  }
}

const storedToken = (page: Page) => page.evaluate(() => sessionStorage.getItem('ats.token'));

describe.skipIf(skipBrowserTests)('signing in to the console with the IdP', () => {
  test('a person signs in at the IdP, approves a call, and the decision names them', async ({
    api,
    consoles,
    server,
    idp,
  }) => {
    const call = await api.pendingCall('sso-user', 'approve me');
    const page = await (await consoles.context()).newPage();
    await signInAtIdp(page, server.origin, 'alice');
    expect(await page.locator('[data-testid=whoami]').textContent()).toBe(
      'APPROVER Alice Approver · for every user',
    );
    expect(new URL(page.url()).pathname).toBe('/console/');

    await waitForCards(page, [call.id]);
    await card(page, call.id).locator('[data-testid=reason-input]').fill('checked at the IdP');
    await card(page, call.id).locator('[data-testid=approve]').click();
    await waitForCards(page, []);

    await page.goto(`${server.origin}/console/#/calls/${call.id}`);
    const decider = page.locator('[data-testid=call-summary] [data-testid=decision] [data-testid=decider]');
    await decider.waitFor();
    expect(await decider.textContent()).toBe('Alice Approver');
    expect(await decider.getAttribute('data-subject')).toBe('alice');

    const decided = await api.must(
      `query($id: ID!, $run: ID!) {
        toolCall(id: $id) { decision { decidedBy reason person { issuer subject displayName } } }
        journal(runId: $run, first: 100) { edges { node { type actor payload } } } }`,
      { id: call.id, run: call.runId },
    );
    const person = { issuer: idp.issuer, subject: 'alice', displayName: 'Alice Approver' };
    expect(decided.toolCall.decision).toEqual({
      decidedBy: 'approver:Alice Approver',
      reason: 'checked at the IdP',
      person,
    });
    const approved = decided.journal.edges
      .map((e: { node: unknown }) => e.node)
      .filter((e: { type: string }) => e.type === 'TOOL_CALL_APPROVED');
    expect(approved).toEqual([
      {
        type: 'TOOL_CALL_APPROVED',
        actor: 'approver:Alice Approver',
        payload: { person, reason: 'checked at the IdP', argumentsHash: call.argumentsHash },
      },
    ]);
  });

  test('the header shows when the session ends: the token’s exp', async ({ consoles, server }) => {
    const page = await (await consoles.context()).newPage();
    await signInAtIdp(page, server.origin, 'alice');
    const token = await storedToken(page);
    const exp = JSON.parse(Buffer.from(token!.split('.')[1]!, 'base64url').toString()).exp as number;
    const shown = page.locator('[data-testid=session-end]');
    expect(await shown.getAttribute('data-expires-at')).toBe(new Date(exp * 1000).toISOString());
    expect(await shown.textContent()).toMatch(/^session until \d\d:\d\d \(.+ left\)$/);
  });

  test('when the session ends the console goes back to sign-in and says why', async ({
    consoles,
    server,
    idp,
  }) => {
    idp.accessTokenTtlSeconds = 3;
    try {
      const page = await (await consoles.context()).newPage();
      await signInAtIdp(page, server.origin, 'alice');
      const said = page.locator('[data-testid=sign-in-error]');
      await said.waitFor({ timeout: UI_TIMEOUT });
      expect(await said.textContent()).toMatch(
        /^Your sign-in ended at \d\d:\d\d, as your company's IdP set it\. Sign in again to go on\.$/,
      );
      expect(await storedToken(page)).toBeNull();
      expect(await page.locator('[data-testid=sign-in-idp]').isVisible()).toBe(true);
    } finally {
      idp.accessTokenTtlSeconds = 300;
    }
  });

  test('sign-out ends the session here and at the IdP, which then asks who is signing in again', async ({
    consoles,
    server,
  }) => {
    const page = await (await consoles.context()).newPage();
    await signInAtIdp(page, server.origin, 'alice');
    await page.locator('[data-testid=sign-out]').click();
    // oidc-provider's own sign-out page asks to confirm.
    await page.locator('button[name=logout][value=yes]').click();
    await page.locator('[data-testid=sign-in-idp]').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(await storedToken(page)).toBeNull();

    await page.locator('[data-testid=sign-in-idp]').click();
    await page.locator('input[name=login]').waitFor();
    expect(new URL(page.url()).origin).not.toBe(server.origin);
  });

  test('a person the IdP maps to VIEWER sees the queue without buttons', async ({
    api,
    consoles,
    server,
  }) => {
    const call = await api.pendingCall('sso-viewer-user', 'look only');
    const page = await (await consoles.context()).newPage();
    await signInAtIdp(page, server.origin, 'bob');
    expect(await page.locator('[data-testid=whoami]').textContent()).toBe(
      'VIEWER Bob Viewer · for every user',
    );
    await page.locator(`[data-testid=call-card][data-call-id="${call.id}"]`).waitFor();
    expect(await card(page, call.id).locator('[data-testid=approve]').count()).toBe(0);
  });

  test('with an IdP configured, a pasted API token still signs in', async ({ api, consoles, server }) => {
    const token = await api.token('paste', 'APPROVER', ['anyone']);
    const page = await (await consoles.context()).newPage();
    await signIn(page, server.origin, token);
    expect(await page.locator('[data-testid=whoami]').textContent()).toBe('APPROVER paste · for anyone');
    expect(await page.locator('[data-testid=session-end]').count()).toBe(0);
  });
});
