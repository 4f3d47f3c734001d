import { describe, expect } from 'vitest';
import {
  AUTO,
  card,
  saveScreenshot,
  skipBrowserTests,
  browserTest as test,
  waitForCards,
} from './support.js';

/** On this profile every workspace write asks. */
const GRANTS = 'browser-grants';

const write = (path: string) => ({ path, content: `${path}\n`, mode: 'create' });

/** Each test a user and workspace of its own, on a profile where writes ask, and a page watching them. */
const grantTest = test.extend<{ $file: { policy: string } }>({
  policy: [
    async ({ api }, use) => {
      await api.rule({
        layer: 'PROFILE',
        scopeId: GRANTS,
        toolPattern: 'workspace.write_file',
        effect: 'ASK',
      });
      await use(GRANTS);
    },
    { scope: 'file' },
  ],
});

describe.skipIf(skipBrowserTests)('scoped grants in the console', () => {
  grantTest(
    '“For this run” with the folder prefilled as a path glob: the preview shows before saving, the next write under that folder in the run never enters the queue, a write elsewhere and another run still ask',
    async ({ api, consoles, policy }) => {
      const approver = await api.token('gus', 'APPROVER', ['run-grant']);
      const runA = await api.run('run-grant', policy, 'grants-run-a');
      const first = await api.call(runA, 'workspace.write_file', write('output/drafts/a.md'));
      const page = await consoles.open(approver);
      await waitForCards(page, [first.id]);

      const onCard = card(page, first.id);
      await onCard.locator('[data-testid=scope-run]').check();
      expect(await onCard.locator('[data-testid=condition-pointer]').inputValue()).toBe('/path');
      expect(await onCard.locator('[data-testid=condition-value]').inputValue()).toBe('output/drafts/**');
      await onCard.locator('[data-testid=grant-preview][data-scope=RUN]').waitFor();
      expect(await onCard.locator('[data-testid=grant-rule]').count()).toBe(0);
      expect(await onCard.locator('[data-testid=approve]').textContent()).toBe('Approve for this run');
      await saveScreenshot(page, 'console-grant.png');
      await onCard.locator('[data-testid=approve]').click();
      await waitForCards(page, []);
      const note = page.locator(`[data-testid=settled-card][data-call-id="${first.id}"]`);
      expect(await note.getAttribute('data-status')).toBe('APPROVED');

      const second = await api.call(runA, 'workspace.write_file', write('output/drafts/b.md'));
      expect(second.status).not.toBe('AWAITING_APPROVAL');
      const elsewhere = await api.call(runA, 'workspace.write_file', write('output/final.md'));
      const runB = await api.run('run-grant', policy, 'grants-run-b');
      const otherRun = await api.call(runB, 'workspace.write_file', write('output/drafts/c.md'));
      expect([elsewhere.status, otherRun.status]).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
      await waitForCards(page, [elsewhere.id, otherRun.id]);
    },
  );

  grantTest(
    '“Always” shows the exact rule before saving, the rule saved on the user’s layer is that rule, and later calls of the user run without asking',
    async ({ api, consoles }) => {
      // A destructive tool asks by the default gate even where the profile allows it; the saved
      // rule waives the gate (an ASK rule of another layer would still ask).
      const approver = await api.token('gwen', 'APPROVER', ['always-grant']);
      const runId = await api.run('always-grant', AUTO);
      const call = await api.call(runId, 'test.dangerous');
      expect(call.status).toBe('AWAITING_APPROVAL');
      const page = await consoles.open(approver);
      await waitForCards(page, [call.id]);

      const onCard = card(page, call.id);
      await onCard.locator('[data-testid=scope-always]').check();
      const shown = onCard.locator('[data-testid=grant-rule]');
      await shown.waitFor();
      const rule = JSON.parse((await shown.textContent()) ?? 'null');
      expect(rule).toMatchObject({
        layer: 'USER',
        scopeId: 'always-grant',
        toolPattern: 'test.dangerous',
        effect: 'ALLOW',
        skipApproval: true,
      });
      expect(await onCard.locator('[data-testid=approve]').textContent()).toBe('Approve always');
      await onCard.locator('[data-testid=approve]').click();
      await waitForCards(page, []);

      const saved = await api.must(
        `query { policyRules(layer: USER, scopeId: "always-grant") {
          layer scopeId toolPattern effect skipApproval reason } }`,
      );
      expect(saved.policyRules).toEqual([
        {
          layer: rule.layer,
          scopeId: rule.scopeId,
          toolPattern: rule.toolPattern,
          effect: rule.effect,
          skipApproval: rule.skipApproval,
          reason: rule.reason,
        },
      ]);
      const laterRun = await api.run('always-grant', AUTO);
      const later = await api.call(laterRun, 'test.dangerous');
      expect(later.status).not.toBe('AWAITING_APPROVAL');
    },
  );

  grantTest(
    'the grants page lists a grant with its scope, conditions and who made it; Revoke ends it and the next call asks again',
    async ({ api, consoles, policy }) => {
      const approver = await api.token('greta', 'APPROVER', ['revoke-grant']);
      const runId = await api.run('revoke-grant', policy, 'grants-revoke');
      const call = await api.call(runId, 'workspace.write_file', write('output/one.md'));
      const page = await consoles.open(approver);
      await waitForCards(page, [call.id]);
      await card(page, call.id).locator('[data-testid=scope-run]').check();
      await card(page, call.id).locator('[data-testid=grant-preview]').waitFor();
      await card(page, call.id).locator('[data-testid=approve]').click();
      await waitForCards(page, []);

      await page
        .locator(`[data-testid=settled-card][data-call-id="${call.id}"] [data-testid=settled-link]`)
        .click();
      await page.locator('[data-testid=grants-page]').waitFor();
      const grant = page.locator('[data-testid=grant][data-scope=RUN]');
      await grant.waitFor();
      expect(await page.locator('[data-testid=grant]').count()).toBe(1);
      expect(await grant.locator('[data-testid=grant-conditions]').textContent()).toBe(
        '/path glob output/** (path)',
      );
      expect(await grant.locator('[data-testid=grant-made]').textContent()).toContain('approver:greta');

      const granted = await api.call(runId, 'workspace.write_file', write('output/two.md'));
      expect(granted.status).not.toBe('AWAITING_APPROVAL');
      await grant.locator('[data-testid=revoke]').click();
      await page.locator('[data-testid=grants-empty]').waitFor();
      await page.locator('[data-testid=grants-include-revoked]').check();
      await page.locator('[data-testid=grant-revoked]').waitFor();
      expect(await page.locator('[data-testid=grant-revoked]').textContent()).toContain('approver:greta');

      const asksAgain = await api.call(runId, 'workspace.write_file', write('output/three.md'));
      expect(asksAgain.status).toBe('AWAITING_APPROVAL');
    },
  );
});
