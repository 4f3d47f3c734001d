import { describe, expect } from 'vitest';
import {
  ASK,
  card,
  saveScreenshot,
  skipBrowserTests,
  browserTest as test,
  waitForCards,
  waitForConnection,
} from './support.js';

/** Calls on this profile need two approvers (a quorum), the rest as on ASK. */
const QUORUM = 'browser-quorum';
/** On this profile test.echo with the text "forbidden" is denied by policy; the rest asks. */
const EDIT = 'browser-edit';

const CALL = `query($id: ID!) { toolCall(id: $id) {
  status arguments approvalsRequired approvals { decidedBy }
  decision { approved decidedBy reason feedback allowRetry }
  replacedBy { id status arguments replaces { id } }
  edit { editedBy diff } } }`;

describe.skipIf(skipBrowserTests)('deciding in the console: edit, feedback, quorum, batches', () => {
  test('an approver edits the arguments, sees the JSON diff, approves; the card says EDITED and links to the replacement, which ran with the edited arguments', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('edith', 'APPROVER', ['edit-user']);
    const call = await api.pendingCall('edit-user', 'draft one');
    const page = await consoles.open(approver);
    await waitForCards(page, [call.id]);

    await card(page, call.id).locator('[data-testid=edit]').click();
    await card(page, call.id).locator('[data-testid=edit-arguments]').fill('{ "text": "final one" }');
    const diff = card(page, call.id).locator('[data-testid=arguments-diff]');
    expect(await diff.locator('[data-kind=del]').allTextContents()).toEqual(['- /text: "draft one"\n']);
    expect(await diff.locator('[data-kind=add]').allTextContents()).toEqual(['+ /text: "final one"\n']);
    await card(page, call.id).locator('[data-testid=reason-input]').fill('say it is final');
    await saveScreenshot(page, 'console-edit.png');
    await card(page, call.id).locator('[data-testid=approve-edited]').click();

    await waitForCards(page, []);
    const note = page.locator(`[data-testid=settled-card][data-call-id="${call.id}"]`);
    expect(await note.getAttribute('data-status')).toBe('EDITED');
    const replacementId = (await api.must(CALL, { id: call.id })).toolCall.replacedBy.id;
    await api.untilStatus(replacementId, 'COMPLETED');
    const after = await api.must(CALL, { id: call.id });
    expect(after.toolCall).toMatchObject({
      status: 'EDITED',
      edit: { editedBy: 'approver:edith', diff: [{ op: 'replace', path: '/text', value: 'final one' }] },
      replacedBy: { status: 'COMPLETED', arguments: { text: 'final one' }, replaces: { id: call.id } },
    });

    await note.locator('[data-testid=settled-link]').click();
    const summary = page.locator(`[data-testid=call-summary][data-call-id="${replacementId}"]`);
    await summary.waitFor();
    await page.locator('[data-testid=call-status]', { hasText: 'COMPLETED' }).waitFor();
    expect(await summary.locator('[data-testid=replaces]').textContent()).toBe(call.id);
    await summary.locator('[data-testid=replaces]').click();
    await page.locator(`[data-testid=call-summary][data-call-id="${call.id}"]`).waitFor();
    expect(await page.locator('[data-testid=call-status]').textContent()).toBe('EDITED');
    expect(await page.locator('[data-testid=call-edit] [data-kind=add]').textContent()).toContain(
      '+ /text: "final one"',
    );
  });

  test('an edit in one console takes the card out of another console watching the same queue', async ({
    api,
    consoles,
  }) => {
    const editor = await api.token('ed', 'APPROVER', ['edit-two']);
    const watcher = await api.token('wes', 'APPROVER', ['edit-two']);
    const call = await api.pendingCall('edit-two', 'before');
    const editorPage = await consoles.open(editor);
    const watcherPage = await consoles.open(watcher);
    await Promise.all([waitForCards(editorPage, [call.id]), waitForCards(watcherPage, [call.id])]);
    await card(editorPage, call.id).locator('[data-testid=edit]').click();
    await card(editorPage, call.id).locator('[data-testid=edit-arguments]').fill('{ "text": "after" }');
    await card(editorPage, call.id).locator('[data-testid=approve-edited]').click();
    await waitForCards(watcherPage, []);
    expect(await api.status(call.id)).toBe('EDITED');
  });

  test('text that is not a JSON object cannot be sent as an edit; the form says why', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('edna', 'APPROVER', ['edit-invalid']);
    const call = await api.pendingCall('edit-invalid', 'keep');
    const page = await consoles.open(approver);
    await waitForCards(page, [call.id]);
    await card(page, call.id).locator('[data-testid=edit]').click();
    await card(page, call.id).locator('[data-testid=edit-arguments]').fill('{ "text": ');
    expect(await card(page, call.id).locator('[data-testid=edit-invalid]').textContent()).toMatch(
      /^not JSON: /,
    );
    expect(await card(page, call.id).locator('[data-testid=approve-edited]').isDisabled()).toBe(true);
    await card(page, call.id).locator('[data-testid=edit-arguments]').fill('["text"]');
    expect(await card(page, call.id).locator('[data-testid=edit-invalid]').textContent()).toBe(
      'the arguments must be a JSON object ({ … })',
    );
    expect(await api.status(call.id)).toBe('AWAITING_APPROVAL');
  });

  test('an edit the policy would deny is refused with its reason on the card, and the call keeps waiting', async ({
    api,
    consoles,
  }) => {
    await api.rule({ layer: 'PROFILE', scopeId: EDIT, toolPattern: 'test.*', effect: 'ASK' });
    await api.rule({
      layer: 'PROFILE',
      scopeId: EDIT,
      toolPattern: 'test.echo',
      effect: 'DENY',
      reason: 'no forbidden words',
      conditions: [{ pointer: '/text', equals: 'forbidden' }],
    });
    const approver = await api.token('eric', 'APPROVER', ['edit-denied']);
    const runId = await api.run('edit-denied', EDIT);
    const call = await api.call(runId, 'test.echo', { text: 'fine' });
    const page = await consoles.open(approver);
    await waitForCards(page, [call.id]);
    await card(page, call.id).locator('[data-testid=edit]').click();
    await card(page, call.id).locator('[data-testid=edit-arguments]').fill('{ "text": "forbidden" }');
    await card(page, call.id).locator('[data-testid=approve-edited]').click();
    const problem = card(page, call.id).locator('[data-testid=decision-error]');
    await problem.waitFor();
    expect(await problem.textContent()).toContain('no forbidden words');
    expect(await api.status(call.id)).toBe('AWAITING_APPROVAL');
  });

  test('a denial with feedback: the decision carries the feedback and allowRetry, and the model reads “Denied by <approver>: <feedback>”', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('fay', 'APPROVER', ['feedback-user']);
    const call = await api.pendingCall('feedback-user', 'rm -rf');
    const page = await consoles.open(approver);
    await waitForCards(page, [call.id]);
    await card(page, call.id).locator('[data-testid=deny-feedback-toggle]').click();
    await card(page, call.id)
      .locator('[data-testid=deny-feedback]')
      .fill('write under output/drafts/ instead');
    await card(page, call.id).locator('[data-testid=deny-allow-retry]').check();
    await card(page, call.id).locator('[data-testid=reason-input]').fill('too broad');
    await card(page, call.id).locator('[data-testid=deny]').click();
    await waitForCards(page, []);

    const after = await api.must(
      `query($id: ID!, $run: ID!) {
        toolCall(id: $id) { status decision { approved decidedBy reason feedback allowRetry } }
        modelRequest(runId: $run, provider: OPENAI_CHAT) { frame { toolResults { callId text } } } }`,
      { id: call.id, run: call.runId },
    );
    expect(after.toolCall).toEqual({
      status: 'DENIED',
      decision: {
        approved: false,
        decidedBy: 'approver:fay',
        reason: 'too broad',
        feedback: 'write under output/drafts/ instead',
        allowRetry: true,
      },
    });
    const answer = after.modelRequest.frame.toolResults.find((r: { callId: string }) => r.callId === call.id);
    expect(answer?.text).toContain('Denied by approver:fay: write under output/drafts/ instead');
  });

  test('two approvers are needed: the first sees “1 of 2” and no second approve button, the other sees who approved and completes the quorum; the call then runs', async ({
    api,
    consoles,
  }) => {
    await api.rule({
      layer: 'PROFILE',
      scopeId: QUORUM,
      toolPattern: 'test.*',
      effect: 'ASK',
      budget: { approvals: 2 },
    });
    const ann = await api.token('quinn', 'APPROVER', ['quorum-user']);
    const ben = await api.token('quill', 'APPROVER', ['quorum-user']);
    const runId = await api.run('quorum-user', QUORUM);
    const call = await api.call(runId, 'test.echo', { text: 'two keys' });
    expect(call.status).toBe('AWAITING_APPROVAL');
    const annPage = await consoles.open(ann);
    const benPage = await consoles.open(ben);
    await Promise.all([waitForCards(annPage, [call.id]), waitForCards(benPage, [call.id])]);

    // One person's approval of a quorum call grants nothing beyond it: no scope to choose.
    expect(await card(annPage, call.id).locator('[data-testid=scope-choice]').count()).toBe(0);
    await card(annPage, call.id).locator('[data-testid=approve]').click();
    await card(annPage, call.id).locator('[data-testid=quorum-mine]').waitFor();
    expect(await card(annPage, call.id).locator('[data-testid=quorum]').textContent()).toContain(
      '1 of 2 approvals',
    );
    expect(await card(annPage, call.id).locator('[data-testid=approve]').count()).toBe(0);
    expect((await api.must(CALL, { id: call.id })).toolCall).toMatchObject({
      status: 'AWAITING_APPROVAL',
      approvalsRequired: 2,
      approvals: [{ decidedBy: 'approver:quinn' }],
    });

    // The other console learns of the first approval live: the queue sends the call again.
    const progress = card(benPage, call.id).locator('[data-testid=quorum]');
    await progress.waitFor();
    expect(await progress.textContent()).toContain('1 of 2 approvals: approver:quinn');
    await saveScreenshot(benPage, 'console-quorum.png');
    await card(benPage, call.id).locator('[data-testid=approve]').click();
    await Promise.all([waitForCards(benPage, []), waitForCards(annPage, [])]);
    await api.untilStatus(call.id, 'COMPLETED');
  });

  test('a turn’s calls in one batch: one approved, one denied with feedback, one decided elsewhere meanwhile shown as a conflict', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('bea', 'APPROVER', ['batch-user']);
    const runId = await api.run('batch-user', ASK);
    const { turnId, calls } = await api.turn(runId, [
      { name: 'test.echo', arguments: { text: 'first' } },
      { name: 'test.echo', arguments: { text: 'second' } },
      { name: 'test.echo', arguments: { text: 'third' } },
    ]);
    expect(calls.map((c) => c.status)).toEqual([
      'AWAITING_APPROVAL',
      'AWAITING_APPROVAL',
      'AWAITING_APPROVAL',
    ]);
    const [first, second, third] = calls.map((c) => c.id) as [string, string, string];
    const page = await consoles.open(approver);
    await waitForCards(page, [first, second, third]);
    expect(await card(page, first).locator('[data-testid=turn-link]').textContent()).toBe(
      "decide this turn's 3 calls together",
    );
    await card(page, first).locator('[data-testid=turn-link]').click();
    const turn = page.locator(`[data-testid=turn-page][data-turn-id="${turnId}"]`);
    await turn.waitFor();
    expect(await page.locator('[data-testid=batch-call]').count()).toBe(3);

    const row = (id: string) => page.locator(`[data-testid=batch-call][data-call-id="${id}"]`);
    await row(first).locator('[data-testid=verdict-approve]').check();
    await row(second).locator('[data-testid=verdict-deny]').check();
    await row(third).locator('[data-testid=verdict-approve]').check();
    await page.locator('[data-testid=batch-feedback]').fill('not this one');
    await api.must('mutation($id: ID!) { denyToolCall(id: $id, reason: "elsewhere") { id } }', { id: third });
    await page.locator('[data-testid=batch-send]').click();

    const conflict = page.locator(`[data-testid=batch-conflict][data-call-id="${third}"]`);
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain('DENIED');
    expect(await page.locator('[data-testid=batch-conflict]').count()).toBe(1);
    await page.locator('[data-testid=turn-pending]', { hasText: '0' }).waitFor();
    await api.untilStatus(first, 'COMPLETED');
    const states = await api.must(
      `query($a: ID!, $b: ID!, $c: ID!) {
        a: toolCall(id: $a) { status } b: toolCall(id: $b) { status decision { feedback reason } }
        c: toolCall(id: $c) { status decision { reason } } }`,
      { a: first, b: second, c: third },
    );
    expect(states).toEqual({
      a: { status: 'COMPLETED' },
      b: { status: 'DENIED', decision: { feedback: 'not this one', reason: null } },
      c: { status: 'DENIED', decision: { reason: 'elsewhere' } },
    });
  });

  test('approve all decides every waiting call of the turn and the queue empties', async ({
    api,
    consoles,
  }) => {
    const approver = await api.token('bob', 'APPROVER', ['batch-all']);
    const runId = await api.run('batch-all', ASK);
    const { turnId, calls } = await api.turn(runId, [
      { name: 'test.echo', arguments: { text: 'one' } },
      { name: 'test.echo', arguments: { text: 'two' } },
    ]);
    const page = await consoles.open(approver, { path: `/#/turns/${turnId}` });
    await waitForConnection(page, 'connected');
    await page.locator('[data-testid=batch-approve-all]').click();
    await page.locator('[data-testid=turn-pending]', { hasText: '0' }).waitFor();
    expect(await page.locator('[data-testid=batch-conflict]').count()).toBe(0);
    for (const call of calls) await api.untilStatus(call.id, 'COMPLETED');
    await page.goto(`${new URL(page.url()).origin}/#/`);
    await waitForCards(page, []);
  });
});
