import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { skipBrowserTests, browserTest as test, UI_TIMEOUT } from './support.js';

/** GraphiQL's editors are Monaco: click one, select all, insert the text (no bracket auto-closing). */
async function replaceEditorText(page: Page, editor: string, text: string) {
  await page.locator(editor).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
}

const QUERY_EDITOR = '.graphiql-query-editor .monaco-editor';
const HEADERS_EDITOR = '.monaco-editor[data-uri$="-request-headers.json"]';

describe.skipIf(skipBrowserTests)('GraphiQL at /graphql', () => {
  test('runs an approvalQueue subscription with the token typed into its Headers tab and shows the pending call', async ({
    browser,
    server,
    api,
  }) => {
    const approver = await api.token('graphiql-approver', 'APPROVER', ['graphiql-user']);
    const call = await api.pendingCall('graphiql-user', 'from graphiql');
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url);
      await page.locator(QUERY_EDITOR).waitFor({ timeout: UI_TIMEOUT });

      await page.getByRole('button', { name: 'Headers', exact: true }).click();
      await replaceEditorText(page, HEADERS_EDITOR, `{"Authorization": "Bearer ${approver}"}`);
      await replaceEditorText(
        page,
        QUERY_EDITOR,
        'subscription { approvalQueue { id name status arguments } }',
      );
      await page.locator('.graphiql-execute-button').click();

      const result = page.locator('section.result-window');
      await result.getByText(call.id).waitFor({ timeout: UI_TIMEOUT });
      // Monaco draws each line as a div and spaces as no-break spaces.
      const text = (await result.locator('.view-lines').textContent()) ?? '';
      const shown = JSON.parse(text.replace(/\u00a0/g, ' '));
      expect(shown).toEqual({
        data: {
          approvalQueue: {
            id: call.id,
            name: 'test.echo',
            status: 'AWAITING_APPROVAL',
            arguments: { text: 'from graphiql' },
          },
        },
      });
    } finally {
      await context.close();
    }
  });
});
