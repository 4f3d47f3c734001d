/**
 * LONG-RUNNING: imports a chat made by the benchmark's generator (Chinese and English mixed) once
 * per driver and searches it; the tests share that one database instead of the per-test fixture.
 * Both drivers get 100,000 messages: Postgres imports them in about 10 s, PGlite (WASM, one core)
 * in about 26 s alone and up to a minute next to the other project, hence the long setup timeout.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createLogger } from '../../../src/app/logger.js';
import { createServices, type Services } from '../../../src/app/services.js';
import { rowsOf } from '../../../src/db/tx.js';
import { RANK_WINDOW } from '../../../src/features/chat/shapes.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { generateChatJsonl, plantedMessageIndices } from '../../support/generate-chat.js';

const MESSAGES = 100_000;
const skipReason = inject('postgresSkipReason');

describe.skipIf(Boolean(skipReason))(`a generated chat of ${MESSAGES.toLocaleString('en')} messages`, () => {
  let testDb: TestDatabase;
  let services: Services;
  const source = createHash('sha256');
  let sourceBytes = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    services = createServices(testDb.database, createLogger('silent'));
    const lines = function* () {
      for (const line of generateChatJsonl({ messages: MESSAGES })) {
        const text = `${line}\n`;
        source.update(text);
        sourceBytes += Buffer.byteLength(text);
        yield text;
      }
    };
    await services.chats.importChat(Readable.from(lines()), { id: 'long', actor: 'test' });
  }, 300_000);

  afterAll(async () => {
    await testDb?.drop();
  });

  const hits = async (query: string, limit = 100) =>
    (await services.chats.search('long', { query, limit })).hits
      .map((hit) => hit.index)
      .sort((a, b) => a - b);

  test('imports every message', async () => {
    expect((await services.chats.require('long')).messageCount).toBe(MESSAGES);
  });

  test('exports byte for byte', async () => {
    const exported = createHash('sha256');
    let bytes = 0;
    for await (const part of services.chats.exportChat('long')) {
      exported.update(part);
      bytes += Buffer.byteLength(part);
    }
    expect(bytes).toBe(sourceBytes);
    expect(exported.digest('hex')).toBe(source.digest('hex'));
  }, 60_000);

  test('finds a planted two-character Chinese term exactly where it was planted', async () => {
    expect(await hits('饕餮')).toEqual(plantedMessageIndices('饕餮', MESSAGES));
  });

  test('finds a planted four-character Chinese term exactly where it was planted', async () => {
    expect(await hits('獬豸衔烛')).toEqual(plantedMessageIndices('獬豸衔烛', MESSAGES));
  });

  test('finds planted English words exactly where they were planted', async () => {
    expect(await hits('zephyrquill')).toEqual(plantedMessageIndices('zephyrquill', MESSAGES));
    expect(await hits('ObsidianWren')).toEqual(plantedMessageIndices('obsidianwren', MESSAGES));
  });

  test('agrees with a plain ILIKE scan on common and rare, Chinese and English queries', async () => {
    for (const query of [
      '长老',
      '藏经阁',
      '松了一口气',
      'library',
      'silver key',
      'deadline',
      '饕餮',
      'zephyr',
      'the',
    ]) {
      const where = sql.join(
        query.split(' ').map((term) => sql`"text" ilike ${`%${term}%`}`),
        sql` and `,
      );
      const [scan] = rowsOf<{ count: number }>(
        await services.database.db.execute(
          sql`select count(*)::int as count from chat_messages where chat_id = 'long' and ${where}`,
        ),
      );
      const result = await services.chats.search('long', { query, limit: 100 });
      expect({ query, matched: result.matched, capped: result.capped }).toEqual({
        query,
        matched: Math.min(scan!.count, RANK_WINDOW),
        capped: scan!.count > RANK_WINDOW,
      });
    }
  }, 60_000);
});
