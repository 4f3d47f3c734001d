import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { Invocation } from '../../src/calls/tool-contract.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { rowsOf } from '../../src/db/tx.js';
import { ChatService } from '../../src/features/chat/service.js';
import { searchTool } from '../../src/features/chat/tools/search.js';
import { generateChatJsonl, plantedMessageIndices } from '../../test/support/generate-chat.js';

/**
 * `npm run bench -- chat-search [messages] [samples]`: generates a chat (default 1,000,000 messages,
 * Chinese and English mixed), imports it into a fresh PGlite (or DATABASE_URL when set), then times
 * the chat.search tool and a plain ILIKE scan for the same queries on the same data.
 */

interface Query {
  label: string;
  query: string;
  /** The planted terms have known hits, so agreement is checked against the generator too. */
  planted: boolean;
}

const QUERIES: Query[] = [
  { label: '2-char Chinese', query: '饕餮', planted: true },
  { label: 'longer Chinese', query: '獬豸衔烛', planted: true },
  { label: 'English', query: 'zephyrquill', planted: true },
  { label: 'English, 1 in 1000', query: 'obsidianwren', planted: true },
  { label: 'frequent Chinese', query: '藏经阁', planted: false },
  { label: 'frequent English', query: 'lantern', planted: false },
];

const CHAT_ID = `bench-chat-search-${process.pid}`;
const WARMUP = 3;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function time(samples: number, work: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < WARMUP; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

const ms = (value: number) => (value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`);
const progress = (text: string) => process.stderr.isTTY && process.stderr.write(`\r\x1b[2K${text}`);

async function open(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  const database = url
    ? await openDatabase({ driver: 'postgres', url })
    : await openDatabase({ driver: 'pglite' });
  await runMigrations(database, url);
  return database;
}

export async function main(args: string[]): Promise<void> {
  const messages = Number(args[0] ?? 1_000_000);
  const samples = Number(args[1] ?? 50);
  if (!Number.isSafeInteger(messages) || messages < 1 || !Number.isSafeInteger(samples) || samples < 1) {
    throw new Error(
      'usage: npm run bench -- chat-search [messages (default 1000000)] [samples (default 50)]',
    );
  }
  const database = await open();
  const chats = new ChatService(database.db);
  try {
    const started = performance.now();
    const lines = function* () {
      for (const line of generateChatJsonl({ messages })) yield `${line}\n`;
    };
    await chats.importChat(Readable.from(lines()), {
      id: CHAT_ID,
      replace: true,
      actor: 'bench',
      onProgress: (p) =>
        progress(
          `importing: ${p.messages.toLocaleString('en')} of ${messages.toLocaleString('en')} messages`,
        ),
    });
    progress('');
    const importSeconds = (performance.now() - started) / 1000;
    const [size] = rowsOf<{ size: string }>(
      await database.db.execute(sql`select pg_size_pretty(pg_total_relation_size('chat_messages')) as size`),
    );
    process.stdout.write(
      `chat-search: ${messages.toLocaleString('en')} messages on ${database.driver}, imported in ${importSeconds.toFixed(1)} s ` +
        `(chat_messages with indexes: ${size!.size}); ${samples} samples per query after ${WARMUP} warm-up runs\n\n`,
    );

    const tool = searchTool(chats);
    const invocation = (query: string) =>
      ({
        run: { chatId: CHAT_ID },
        db: database.db,
        arguments: { query, limit: 20 },
      }) as unknown as Invocation;
    const scan = (query: string) =>
      database.db.execute(
        sql`select idx from chat_messages where chat_id = ${CHAT_ID} and "text" ilike ${`%${query}%`}`,
      );

    const header = [
      'query',
      'hits',
      'chat.search p50',
      'p95',
      'ILIKE scan p50',
      'p95',
      'speed-up p50',
      'p95',
      'agrees',
    ];
    const rows: string[][] = [header];
    for (const { label, query, planted } of QUERIES) {
      const found = (await tool.run(invocation(query))).structured as {
        matched: number;
        capped: boolean;
        hits: Array<{ index: number }>;
      };
      const scanned = rowsOf<{ idx: number }>(await scan(query)).map((row) => row.idx);
      const expected = planted ? plantedMessageIndices(query, messages) : scanned;
      const agrees =
        found.matched === Math.min(scanned.length, 1000) &&
        scanned.length === expected.length &&
        (found.capped || found.hits.length < 20
          ? found.hits.every((hit) => scanned.includes(hit.index))
          : true);
      const searchTime = await time(samples, () => tool.run(invocation(query)));
      const scanTime = await time(Math.max(5, Math.ceil(samples / 5)), () => scan(query));
      rows.push([
        `${label} "${query}"`,
        `${scanned.length}`,
        ms(searchTime.p50),
        ms(searchTime.p95),
        ms(scanTime.p50),
        ms(scanTime.p95),
        `${(scanTime.p50 / searchTime.p50).toFixed(0)}×`,
        `${(scanTime.p95 / searchTime.p95).toFixed(0)}×`,
        agrees ? 'yes' : 'NO',
      ]);
    }
    const widths = header.map((_, column) => Math.max(...rows.map((row) => [...row[column]!].length)));
    for (const row of rows) {
      process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}\n`);
    }
    process.stdout.write(
      '\nchat.search: the BUILT_IN tool handler (SQL, ranking, snippets, rendering), without the call journal.\n' +
        'ILIKE scan: select idx from chat_messages where chat_id = $1 and "text" ilike \'%query%\'.\n' +
        'Targets: chat.search p95 under 10 ms and at least 30x faster than the scan.\n',
    );
  } finally {
    await chats.require(CHAT_ID).then(
      () => database.db.execute(sql`delete from chats where id = ${CHAT_ID}`),
      () => undefined,
    );
    await database.close();
  }
}
