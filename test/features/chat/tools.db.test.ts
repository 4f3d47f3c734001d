import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { chats } from '../../../src/features/chat/tables.js';
import { chatJsonl } from '../../support/chat.js';
import { dbTest as test } from '../../support/fixtures.js';
import { admin, agent, allow, eventTypes, newRun, resultText, structured } from '../../support/lifecycle.js';

const completed = ['tool_call_requested', 'tool_call_started', 'tool_call_completed'];
const failed = ['tool_call_requested', 'tool_call_started', 'tool_call_failed'];

/** Messages 0..count-1, message i is `m<i>` padded to `size` characters. */
const padded = (count: number, size = 10) =>
  Array.from({ length: count }, (_, i) => `m${i}`.padEnd(size, '.'));

async function setup(services: Services, texts: string[], chatId: string | null = 'c') {
  if (chatId)
    await services.chats.importChat(chatJsonl(texts), { id: chatId, ownerUserId: 'u1', actor: 'test' });
  await allow(services, 'chat.*');
  return newRun(services, chatId ? { chatId } : {});
}

async function call(services: Services, runId: string, name: string, args: Record<string, unknown> = {}) {
  return services.calls.request({ runId, name, arguments: args }, agent);
}

describe('chat.search through the lifecycle', () => {
  test('completes with ranked hits and journals requested, started, completed', async ({ services }) => {
    const run = await setup(services, ['我们去后山吧', '饕餮的传说', 'nothing here', '饕餮！饕餮！']);
    const done = await call(services, run.id, 'chat.search', { query: '饕餮' });
    expect(done.status).toBe('COMPLETED');
    expect(structured(done)).toMatchObject({ chatId: 'c', terms: ['饕餮'], matched: 2, capped: false });
    expect(structured(done).hits.map((hit: { ref: string }) => hit.ref)).toEqual(['chat:c#3', 'chat:c#1']);
    expect(resultText(done)).toMatch(
      /^Search "饕餮" in chat c: 2 messages match; best 2 first\.\n1\. #3 assistant · 沈念/,
    );
    expect(await eventTypes(services, { callId: done.id })).toEqual(completed);
  });

  test('gives its own summary: the count and the best hits, without snippets', async ({ services }) => {
    const run = await setup(services, ['我们去后山吧', '饕餮的传说', 'nothing here', '饕餮！饕餮！']);
    const done = await call(services, run.id, 'chat.search', { query: '饕餮' });
    expect(structured(done).summary).toBe(
      'Searched chat c for "饕餮": 2 matching messages; best hits #3, #1. Search again to see their snippets and cursors.',
    );
  });

  test('a context of summaries shows that summary for the result', async ({ services }) => {
    const run = await setup(services, ['饕餮的传说', ...padded(40, 200).map((t) => `饕餮 ${t}`)]);
    const done = await call(services, run.id, 'chat.search', { query: '饕餮', limit: 30 });
    const preset = { components: [{ kind: 'TOOL_RESULTS', tokenBudget: 2000, form: 'SUMMARY' }] };
    const frame = await services.context.frame(run.id, { preset }, admin);
    expect(frame.toolResults[0]!.text.split('\n')[0]).toBe(structured(done).summary);
    expect(frame.toolResults[0]!.text).toMatch(/\n\[summary by the tool; the full result has \d+ tokens\]$/);
  });

  test('no hits is a completed call with an empty result, not an error', async ({ services }) => {
    const run = await setup(services, ['hello']);
    const done = await call(services, run.id, 'chat.search', { query: '麒麟' });
    expect(done.status).toBe('COMPLETED');
    expect(done.result!.isError).toBe(false);
    expect(structured(done).hits).toEqual([]);
    expect(resultText(done)).toBe(
      'No message in chat c contains "麒麟". This is a normal result: try fewer or shorter terms, or another wording.',
    );
  });

  test('a run without a chat gets a recoverable no_chat error and goes on', async ({ services }) => {
    const run = await setup(services, [], null);
    const done = await call(services, run.id, 'chat.search', { query: 'x' });
    expect(done.status).toBe('FAILED');
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'no_chat',
      message:
        'This run is not attached to a chat, so there is no chat history to read. Continue without the chat tools.',
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual(failed);
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
  });

  test('a run whose chat is gone gets a recoverable chat_not_found error', async ({ services }) => {
    // createRun refuses a chat that does not exist, so this one is removed behind the run's back.
    const run = await setup(services, ['a'], 'gone');
    await services.database.db.delete(chats).where(eq(chats.id, 'gone'));
    const done = await call(services, run.id, 'chat.read_history_tail');
    expect(done.error).toMatchObject({ kind: 'RECOVERABLE', code: 'chat_not_found' });
  });

  test('an index range the wrong way round is a recoverable invalid_arguments error', async ({
    services,
  }) => {
    const run = await setup(services, ['a']);
    const done = await call(services, run.id, 'chat.search', { query: 'a', fromIndex: 5, toIndex: 1 });
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'invalid_arguments',
      message: 'toIndex: must not be smaller than fromIndex. Fix the arguments and call the tool again.',
    });
  });

  test("a hit's cursor reads that message and the ones before it", async ({ services }) => {
    const run = await setup(services, padded(30));
    const found = await call(services, run.id, 'chat.search', { query: 'm12.' });
    const [hit] = structured(found).hits;
    const page = await call(services, run.id, 'chat.read_history_before', { cursor: hit.cursor, limit: 3 });
    expect(structured(page).messages.map((m: { index: number }) => m.index)).toEqual([10, 11, 12]);
  });
});

describe('chat.read_history_tail and chat.read_history_before through the lifecycle', () => {
  test('the tail is the newest messages, oldest first, with a cursor to older ones', async ({ services }) => {
    const run = await setup(services, padded(30));
    const done = await call(services, run.id, 'chat.read_history_tail', { limit: 5 });
    expect(done.status).toBe('COMPLETED');
    expect(structured(done).messages.map((m: { index: number }) => m.index)).toEqual([25, 26, 27, 28, 29]);
    expect(structured(done).messages[0]).toEqual({
      ref: 'chat:c#25',
      index: 25,
      role: 'assistant',
      name: '沈念',
      sentAt: '2024-08-07T10:00:25.000Z',
      text: 'm25.......',
      chars: 10,
      truncated: false,
      start: 0,
      end: 10,
    });
    expect(structured(done)).toMatchObject({
      messageCount: 30,
      continuation: null,
      nextCursor: expect.any(String),
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual(completed);
  });

  test('a page gives its own summary: which messages were read and the cursor to older ones', async ({
    services,
  }) => {
    const run = await setup(services, padded(30));
    const done = await call(services, run.id, 'chat.read_history_tail', { limit: 5 });
    const { nextCursor, summary } = structured(done);
    expect(summary).toBe(
      `Read messages #25-#29 of chat c (30 messages). Older messages: chat.read_history_before with cursor "${nextCursor}".`,
    );
  });

  test('paging back with the cursors visits every message once and ends with a null cursor', async ({
    services,
  }) => {
    const run = await setup(services, padded(23));
    const seen: number[] = [];
    let page = structured(await call(services, run.id, 'chat.read_history_tail', { limit: 5 }));
    seen.unshift(...page.messages.map((m: { index: number }) => m.index));
    while (page.nextCursor) {
      page = structured(
        await call(services, run.id, 'chat.read_history_before', { cursor: page.nextCursor, limit: 5 }),
      );
      seen.unshift(...page.messages.map((m: { index: number }) => m.index));
    }
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => i));
  });

  test('the character budget limits a page to the whole messages that fit', async ({ services }) => {
    const run = await setup(services, padded(10, 100));
    const done = await call(services, run.id, 'chat.read_history_tail', { maxChars: 350 });
    expect(structured(done).messages.map((m: { index: number }) => m.index)).toEqual([7, 8, 9]);
  });

  test('a message longer than the budget is cut with an explicit continuation that reads the rest', async ({
    services,
  }) => {
    const long = Array.from({ length: 250 }, (_, i) => `${i}`.padStart(4, '0')).join('');
    const run = await setup(services, ['first', long]);
    const tail = await call(services, run.id, 'chat.read_history_tail', { maxChars: 400 });
    const page = structured(tail);
    expect(page.messages).toEqual([
      expect.objectContaining({
        index: 1,
        text: long.slice(600),
        chars: 1000,
        truncated: true,
        start: 600,
        end: 1000,
      }),
    ]);
    expect(page.continuation).toBe(
      `Message #1 is longer than the budget: only characters 600-1000 of 1000 are shown. Its first 600 characters come next: call chat.read_history_before with cursor "${page.nextCursor}".`,
    );
    expect(resultText(tail)).toContain(
      '[#1 assistant · 沈念 · 2024-08-07T10:00:01.000Z · characters 600-1000 of 1000]',
    );
    const parts = [page.messages[0].text];
    let cursor = page.nextCursor;
    while (cursor) {
      const before = structured(
        await call(services, run.id, 'chat.read_history_before', { cursor, maxChars: 400 }),
      );
      const rest = before.messages.find((m: { index: number }) => m.index === 1);
      if (!rest) break;
      parts.unshift(rest.text);
      cursor = before.nextCursor;
    }
    expect(parts.join('')).toBe(long);
  });

  test('an invalid cursor is a recoverable invalid_cursor error', async ({ services }) => {
    const run = await setup(services, padded(3));
    const done = await call(services, run.id, 'chat.read_history_before', { cursor: 'not-a-cursor' });
    expect(done.status).toBe('FAILED');
    expect(done.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_cursor' });
    expect(await eventTypes(services, { callId: done.id })).toEqual(failed);
  });

  test("a cursor from another run's chat is refused", async ({ services }) => {
    const first = await setup(services, padded(30), 'one');
    const cursor = structured(
      await call(services, first.id, 'chat.read_history_tail', { limit: 2 }),
    ).nextCursor;
    await services.chats.importChat(chatJsonl(padded(30)), { id: 'two', ownerUserId: 'u1', actor: 'test' });
    const second = await newRun(services, { chatId: 'two' });
    const done = await call(services, second.id, 'chat.read_history_before', { cursor });
    expect(done.error).toMatchObject({ kind: 'RECOVERABLE', code: 'cursor_from_other_chat' });
  });

  test('a budget below the schema minimum is rejected before dispatch', async ({ services }) => {
    const run = await setup(services, padded(3));
    const done = await call(services, run.id, 'chat.read_history_tail', { maxChars: 10 });
    expect(done.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_arguments' });
    expect(await eventTypes(services, { callId: done.id })).toEqual([
      'tool_call_requested',
      'tool_call_failed',
    ]);
  });

  test('an empty chat has an empty tail', async ({ services }) => {
    const run = await setup(services, []);
    const done = await call(services, run.id, 'chat.read_history_tail');
    expect(structured(done)).toEqual({
      chatId: 'c',
      messageCount: 0,
      messages: [],
      nextCursor: null,
      continuation: null,
      summary: 'Chat c has no messages.',
    });
    expect(resultText(done)).toBe('Chat c has no messages.');
  });
});
