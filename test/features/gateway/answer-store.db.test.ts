import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import { HostAnswerStore } from '../../../src/features/gateway/answer-store.js';
import { HostAnswers } from '../../../src/features/gateway/host-answers.js';
import { mcpHostAnswers } from '../../../src/features/gateway/tables.js';
import { dbTest as test } from '../../support/fixtures.js';
import { waitFor } from '../../support/lifecycle.js';

const answerTo = (id: string, text: string) => ({ jsonrpc: '2.0', id, result: { text } });

/** A held request's stream: what the gateway sends the host on it. */
function stream() {
  const sent: JSONRPCMessage[] = [];
  const transport = {
    start: async () => {},
    close: async () => {},
    send: async (m: JSONRPCMessage) => void sent.push(m),
  };
  return { sent, transport: transport as unknown as Transport };
}

const SAMPLE = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };

describe('host answers stored for the process that asked (mcp_host_answers)', () => {
  test('a stored answer is taken exactly once', async ({ services }) => {
    const store = new HostAnswerStore(services.database.db);
    await store.put('ats-relay-1', 's1', answerTo('ats-relay-1', 'hi'));
    const taken = await Promise.all([store.take('ats-relay-1', 's1'), store.take('ats-relay-1', 's1')]);
    expect(taken.filter(Boolean)).toEqual([answerTo('ats-relay-1', 'hi')]);
    expect(await services.database.db.select().from(mcpHostAnswers)).toEqual([]);
  });

  test('an answer that came in another session is not taken, and does not stand in the way of the right one', async ({
    services,
  }) => {
    const store = new HostAnswerStore(services.database.db);
    await store.put('ats-relay-2', 'intruder', answerTo('ats-relay-2', 'forged'));
    expect(await store.take('ats-relay-2', 's1')).toBeUndefined();
    await store.put('ats-relay-2', 's1', answerTo('ats-relay-2', 'genuine'));
    expect(await store.take('ats-relay-2', 's1')).toEqual(answerTo('ats-relay-2', 'genuine'));
  });

  test('an expired answer is not taken, and the next store deletes it', async ({ services }) => {
    const expired = new HostAnswerStore(services.database.db, 0);
    await expired.put('ats-relay-3', 's1', answerTo('ats-relay-3', 'late'));
    expect(await expired.take('ats-relay-3', 's1')).toBeUndefined();
    await new HostAnswerStore(services.database.db).put('ats-relay-4', 's1', answerTo('ats-relay-4', 'new'));
    const left = await services.database.db.select({ id: mcpHostAnswers.requestId }).from(mcpHostAnswers);
    expect(left).toEqual([{ id: 'ats-relay-4' }]);
  });

  test('an answer given to another process’s HostAnswers reaches the one that asked, which keeps nothing stored', async ({
    services,
  }) => {
    const other = new HostAnswers(services.database, services.logger);
    await other.start();
    const { sent, transport } = stream();
    const asked = services.gateway.answers.ask(transport, 7, SAMPLE, 's1', new AbortController().signal);
    const id = (sent[0] as { id: string }).id;
    expect(await other.answer(answerTo(id, 'across'), 's1')).toBe(true);
    expect(await asked).toEqual({ text: 'across' });
    expect(await services.database.db.select().from(mcpHostAnswers)).toEqual([]);
    await other.stop();
  });

  test('an answer from another session does not settle the request; the right session’s answer does', async ({
    services,
  }) => {
    const other = new HostAnswers(services.database, services.logger);
    await other.start();
    const { sent, transport } = stream();
    let settled = false;
    const asked = services.gateway.answers
      .ask(transport, 7, SAMPLE, 's1', new AbortController().signal)
      .finally(() => {
        settled = true;
      });
    const id = (sent[0] as { id: string }).id;
    expect(await services.gateway.answers.answer(answerTo(id, 'forged here'), 'intruder')).toBe(false);
    await other.answer(answerTo(id, 'forged there'), 'intruder');
    await waitFor(async () => (await services.database.db.select().from(mcpHostAnswers)).length === 1);
    expect(settled).toBe(false);
    await other.answer(answerTo(id, 'genuine'), 's1');
    expect(await asked).toEqual({ text: 'genuine' });
    await other.stop();
  });
});
