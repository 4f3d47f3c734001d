import { createClient } from 'graphql-ws';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../support/lifecycle.js';
import { type Api, AUTO, browserTest, saveScreenshot, skipBrowserTests } from './support.js';

const RUN_USER = 'run-view-user';
const EXTENSION = 'lens';

/** Polls until the call has finished (COMPLETED or FAILED) and returns its status. */
function settled(api: Api, callId: string) {
  return waitFor(
    async () => {
      const status = await api.status(callId);
      return ['COMPLETED', 'FAILED'].includes(status) && status;
    },
    30_000,
    100,
  );
}

/**
 * An extension that offers `ext.lens.inspect` and answers its one invocation with a JSON part, over
 * graphql-ws like a real one; the call is requested once its subscription holds a connection row.
 */
async function jsonCall(api: Api, runId: string): Promise<string> {
  const token = (
    await api.must('mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }', {
      input: { name: EXTENSION, role: 'EXTENSION', extensionId: EXTENSION },
    })
  ).createApiToken.token;
  await api.must(
    `mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "${AUTO}", toolPattern: "ext.${EXTENSION}.*",
      effect: ALLOW, skipApproval: true }) { id } }`,
  );
  const client = createClient({
    url: api.url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  const once = (query: string, variables?: Record<string, unknown>) =>
    new Promise<void>((resolve, reject) =>
      client.subscribe({ query, variables }, { next: () => {}, error: reject, complete: resolve }),
    );
  try {
    await once(
      'mutation($tools: [ExtensionToolInput!]!) { registerExtensionTools(input: { tools: $tools }) { name } }',
      {
        tools: [
          {
            name: 'inspect',
            description: 'Reports what it sees as JSON.',
            inputSchema: {
              type: 'object',
              properties: { subject: { type: 'string' } },
              required: ['subject'],
            },
            annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
          },
        ],
      },
    );
    const answered = new Promise<void>((resolve, reject) => {
      client.subscribe<{ extensionInvocations: { callId: string } }>(
        { query: 'subscription { extensionInvocations { callId } }' },
        {
          next: ({ data }) => {
            const result = {
              content: [
                { type: 'json', value: { subject: 'lighthouse', colours: ['red', 'white'], height: 42 } },
              ],
            };
            once(
              'mutation($id: ID!, $result: ExtensionResultInput!) { answerExtensionInvocation(callId: $id, result: $result) { status } }',
              { id: data!.extensionInvocations.callId, result },
            ).then(resolve, reject);
          },
          error: reject,
          complete: () => {},
        },
      );
    });
    await waitFor(
      async () =>
        (await api.must('{ extensionConnections { extensionId } }')).extensionConnections.length > 0,
      30_000,
      100,
    );
    const call = await api.call(runId, `ext.${EXTENSION}.inspect`, { subject: 'lighthouse' });
    await answered;
    await settled(api, call.id);
    return call.id;
  } finally {
    await client.dispose();
  }
}

interface RichRun {
  runId: string;
  diffCall: string;
  jsonCall: string;
  errorCall: string;
}

/**
 * One run with real calls of each kind: two writes then an approved restore_checkpoint (its result
 * has a diff), an extension's JSON answer, and a tool that fails with a recoverable error.
 */
const test = browserTest.extend<{ $file: { richRun: RichRun } }>({
  richRun: [
    async ({ api }, use) => {
      const runId = await api.run(RUN_USER, AUTO, 'run-view-workspace');
      for (const path of ['output/first.md', 'output/second.md']) {
        const write = await api.call(runId, 'workspace.write_file', {
          path,
          content: `${path}\n`,
          mode: 'create',
        });
        if (write.status !== 'COMPLETED') throw new Error(`write of ${path}: ${write.status}`);
      }
      const restore = await api.call(runId, 'workspace.restore_checkpoint', { checkpoint: 1 });
      await api.approve(restore.id, 'undo the second file');
      expect(await settled(api, restore.id)).toBe('COMPLETED');
      const json = await jsonCall(api, runId);
      const failing = await api.call(runId, 'test.fail_recoverable');
      expect(failing.status).toBe('FAILED');
      await use({ runId, diffCall: restore.id, jsonCall: json, errorCall: failing.id });
    },
    { scope: 'file' },
  ],
});

async function runView(page: Page, runId: string) {
  await page.goto(`${new URL(page.url()).origin}/#/runs/${runId}`);
  await page.locator(`[data-testid=run-view][data-run-id="${runId}"]`).waitFor();
}

const runCall = (page: Page, callId: string) =>
  page.locator(`[data-testid=run-call][data-call-id="${callId}"]`);

describe.skipIf(skipBrowserTests)('the run view', () => {
  test('renders the diff of a restore_checkpoint result, with the approval that let it run', async ({
    api,
    consoles,
    richRun,
  }) => {
    const page = await consoles.open(await api.token('diff-reader', 'VIEWER', [RUN_USER]));
    await runView(page, richRun.runId);
    const call = runCall(page, richRun.diffCall);
    // The diff part shows "loading…" until its resource(uri) answers; wait for the text itself.
    await call.locator('[data-testid=part-diff]', { hasText: 'output/second.md' }).waitFor();

    expect(await call.getAttribute('data-status')).toBe('COMPLETED');
    const diff = (await call.locator('[data-testid=part-diff]').textContent()) ?? '';
    expect(diff).toContain('output/second.md');
    expect(await call.locator('[data-testid=decision]').textContent()).toContain('undo the second file');
    await saveScreenshot(page, 'console-run.png');
  });

  test('renders an extension’s JSON result as a tree with its values', async ({ api, consoles, richRun }) => {
    const page = await consoles.open(await api.token('json-reader', 'VIEWER', [RUN_USER]));
    await runView(page, richRun.runId);
    const call = runCall(page, richRun.jsonCall);
    await call.locator('[data-testid=part-json]').waitFor();

    expect(await call.getAttribute('data-status')).toBe('COMPLETED');
    const json = (await call.locator('[data-testid=part-json]').textContent()) ?? '';
    expect(json).toContain('lighthouse');
    expect(json).toContain('42');
  });

  test('renders a failed call’s error with its class and code', async ({ api, consoles, richRun }) => {
    const page = await consoles.open(await api.token('error-reader', 'VIEWER', [RUN_USER]));
    await runView(page, richRun.runId);
    const call = runCall(page, richRun.errorCall);
    await call.locator('[data-testid=call-error]').waitFor();

    expect(await call.getAttribute('data-status')).toBe('FAILED');
    const error = (await call.locator('[data-testid=call-error]').textContent()) ?? '';
    expect(error).toContain('RECOVERABLE');
    expect(error).toContain('no_hits');
  });
});
