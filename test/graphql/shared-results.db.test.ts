import type { Client } from 'graphql-ws';
import { describe, expect } from 'vitest';
import { serverTest as test, wsClient } from '../support/app-server.js';
import { admin, allow, waitFor } from '../support/lifecycle.js';
import { person, runFor } from '../support/people.js';

interface Delivered {
  seq: string;
  type: string;
  runId: string | null;
}

const EVENTS = 'subscription ($after: String) { journalEvents(afterSeq: $after) { seq type runId } }';

/** Every event a subscription delivers, as it arrives; ended when the test ends. */
function collect(client: Client, after: string): Delivered[] {
  const got: Delivered[] = [];
  client.subscribe<{ journalEvents: Delivered }>(
    { query: EVENTS, variables: { after } },
    { next: (r) => got.push(r.data!.journalEvents), error: () => {}, complete: () => {} },
  );
  return got;
}

describe('journalEvents executed once for subscribers of the same document and sight', () => {
  test('subscribers of two principals on one document each get exactly the events they may see', async ({
    services,
    serve,
  }) => {
    const url = await serve();
    await allow(services);
    const alice = await runFor(services, 'alice');
    const bob = await runFor(services, 'bob');
    const viewer = await person(services, 'VIEWER', ['alice']);
    const { secret: adminSecret } = await services.tokens.create({ name: 'all', role: 'ADMIN' });
    const { seq } = (await services.journal.read({ afterSeq: 0n, limit: 1000 })).at(-1)!;
    const after = seq.toString();
    const admins = [1, 2].map(() =>
      collect(wsClient(url, { authorization: `Bearer ${adminSecret}` }), after),
    );
    const viewers = [1, 2].map(() =>
      collect(wsClient(url, { authorization: `Bearer ${viewer.secret}` }), after),
    );
    // Everyone has the first call before the others are made: those reach all four live, from the bus.
    await services.calls.request({ runId: alice.id, name: 'test.noop' }, admin);
    await waitFor(async () => [...admins, ...viewers].every((got) => got.length >= 3) || null);
    await services.calls.request({ runId: bob.id, name: 'test.noop' }, admin);
    await services.calls.request({ runId: alice.id, name: 'test.noop' }, admin);
    await waitFor(
      async () =>
        (admins.every((got) => got.length === 9) && viewers.every((got) => got.length === 6)) || null,
    );

    const stored = (await services.journal.read({ afterSeq: seq, limit: 1000 })).map((e) => ({
      seq: e.seq.toString(),
      type: e.type.toUpperCase(),
      runId: e.runId ?? null,
    }));
    expect(stored.map((e) => e.runId)).toEqual([
      ...Array(3).fill(alice.id),
      ...Array(3).fill(bob.id),
      ...Array(3).fill(alice.id),
    ]);
    for (const got of admins) expect(got).toEqual(stored);
    for (const got of viewers) expect(got).toEqual(stored.filter((e) => e.runId === alice.id));
  });
});

describe('journalEvents over graphql-ws, written once per event and sharing key', () => {
  test('two subscriptions of one document on one socket each get every event once, under their own id', async ({
    services,
    serve,
  }) => {
    const url = await serve();
    await allow(services);
    const run = await runFor(services, 'alice');
    const { secret } = await services.tokens.create({ name: 'all', role: 'ADMIN' });
    const { seq } = (await services.journal.read({ afterSeq: 0n, limit: 1000 })).at(-1)!;
    const client = wsClient(url, { authorization: `Bearer ${secret}` });
    const [first, second] = [collect(client, seq.toString()), collect(client, seq.toString())];
    await services.calls.request({ runId: run.id, name: 'test.noop' }, admin);
    await waitFor(async () => [first, second].every((got) => got.length >= 3) || null);
    await services.calls.request({ runId: run.id, name: 'test.noop' }, admin);
    await waitFor(async () => [first, second].every((got) => got.length >= 6) || null);

    const stored = (await services.journal.read({ afterSeq: seq, limit: 1000 })).map((e) => e.seq.toString());
    expect(stored).toHaveLength(6);
    expect({ first: first.map((e) => e.seq), second: second.map((e) => e.seq) }).toEqual({
      first: stored,
      second: stored,
    });
  });
});
