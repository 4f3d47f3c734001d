import { describe, expect } from 'vitest';
import {
  cardIds,
  recordConnectionStates,
  skipBrowserTests,
  browserTest as test,
  waitForCards,
  waitForConnection,
} from './support.js';

/** Its own file: the test kills the server every other test of a file would share. */
describe.skipIf(skipBrowserTests)('the console across a server restart', () => {
  test('the server is killed and restarted on the same port and data while the page is open: the page shows reconnecting, then connected and the same queue, with no duplicate cards, and stays live', async ({
    api,
    consoles,
    server,
  }) => {
    const approver = await api.token('night-shift', 'APPROVER', ['restart-user']);
    const first = await api.pendingCall('restart-user', 'before the crash 1');
    const second = await api.pendingCall('restart-user', 'before the crash 2');
    const page = await consoles.open(approver);
    await waitForCards(page, [first.id, second.id]);
    await waitForConnection(page, 'connected');
    const states = await recordConnectionStates(page);

    const port = server.port;
    await server.kill();
    await waitForConnection(page, 'reconnecting');
    await server.restart();
    expect(server.port).toBe(port);
    // The page's back-off reaches 15 s between attempts while the server boots.
    await waitForConnection(page, 'connected', 90_000);
    await waitForCards(page, [first.id, second.id]);

    const seen = await states();
    expect(seen[0]).toBe('connected');
    expect(seen[1]).toBe('reconnecting');
    expect(seen[seen.length - 1]).toBe('connected');
    expect(await cardIds(page)).toEqual([first.id, second.id].sort());
    expect(await page.locator('[data-testid=call-card]').count()).toBe(2);

    const third = await api.pendingCall('restart-user', 'after the restart');
    await waitForCards(page, [first.id, second.id, third.id]);
    expect(await cardIds(page)).toEqual([first.id, second.id, third.id].sort());
  });
});
