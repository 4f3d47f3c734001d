import { eq, type SQL, sql } from 'drizzle-orm';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import { codePoints } from '../../core/unicode.js';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/tx.js';
import { encodeHistoryCursor } from './rules/history.js';
import type { ChatRole } from './rules/jsonl.js';
import { estimateMatchFraction, planChatSearch } from './rules/search.js';
import {
  type ChatSearchInput,
  chatSearchInputSchema,
  iso,
  messageRef,
  RANK_WINDOW,
  SEARCH_DEFAULT_LIMIT,
  type SearchResult,
} from './shapes.js';
import { chats } from './tables.js';

const SNIPPET_BEFORE = 60;

const SNIPPET_LENGTH = 200;

interface SearchStats {
  at: number;
  rows: number;
  frequency: Map<string, number>;
}

/** Reading pg_stats takes milliseconds; a search should not. Keyed by database: tests run several over one process. */
const statsCache = new WeakMap<Db, SearchStats>();

const STATS_TTL_MS = 60_000;

/** Ranked substring search inside Postgres; see rules/search.ts for what matches and why the indexes are exact. */
export async function searchChat(db: Db, chatId: string, raw: ChatSearchInput): Promise<SearchResult> {
  const input = parseInput(chatSearchInputSchema, raw);
  const plan = planChatSearch(input.query);
  const stats = plan.indexed ? await searchStats(db) : null;
  // Without the index predicates Postgres reads the chat newest first and stops once the
  // ranking window is full: cheaper than fetching every match of a common term.
  const newestFirst =
    stats !== null &&
    estimateMatchFraction(plan, (lexeme) => stats.frequency.get(lexeme)) >=
      Math.sqrt(RANK_WINDOW / Math.max(stats.rows, 1));
  const conditions: SQL[] = [sql`chat_id = ${chatId}`];
  if (plan.bigramQuery && !newestFirst) conditions.push(sql`search @@ ${plan.bigramQuery}::tsquery`);
  for (const term of plan.terms) {
    if (!newestFirst) {
      for (const pattern of term.latinPatterns) conditions.push(sql`ats_latin_text("text") ilike ${pattern}`);
    }
    conditions.push(sql`"text" ilike ${term.pattern}`);
  }
  if (input.roles)
    conditions.push(
      sql`role in (${sql.join(
        input.roles.map((role) => sql`${role}`),
        sql`, `,
      )})`,
    );
  if (input.fromIndex != null) conditions.push(sql`idx >= ${input.fromIndex}`);
  if (input.toIndex != null) conditions.push(sql`idx <= ${input.toIndex}`);

  const occurrences = plan.terms.map(
    (term) =>
      sql`(char_length(lower(m."text")) - char_length(replace(lower(m."text"), lower(${term.text}), ''))) / char_length(lower(${term.text}))`,
  );
  const wholeWords = plan.terms
    .filter((term) => term.latinOnly)
    .map((term) => sql`(m.search @@ plainto_tsquery('simple', ${term.text}))::int`);
  const score = sql.join([...occurrences, ...wholeWords], sql` + `);
  const first = plan.terms[0]!.text;

  const rows = rowsOf<{
    idx: number;
    role: ChatRole;
    name: string;
    sent_at: unknown;
    score: number;
    matched: number;
    chars: number;
    snippet_start: number;
    snippet: string;
  }>(
    await db.execute(sql`
      with candidates as materialized (
        select idx from chat_messages where ${sql.join(conditions, sql` and `)}
        order by idx desc limit ${RANK_WINDOW + 1}
      ),
      best as (
        select m.idx, m.role, m.name, m.sent_at, m."text", (${score})::int as score
        from candidates c join chat_messages m on m.chat_id = ${chatId} and m.idx = c.idx
        order by score desc, m.idx desc limit ${input.limit ?? SEARCH_DEFAULT_LIMIT}
      )
      select idx, role, name, sent_at, score, (select count(*) from candidates)::int as matched,
             char_length("text") as chars, from_char - 1 as snippet_start,
             substr("text", from_char, ${SNIPPET_LENGTH}) as snippet
      from (select *, greatest(strpos(lower("text"), lower(${first})) - ${SNIPPET_BEFORE}, 1) as from_char from best) located
      order by score desc, idx desc`),
  );
  // No rows may also mean no such chat; asked only then, so a search with hits is one query.
  if (rows.length === 0) await requireChat(db, chatId);
  const matched = rows[0]?.matched ?? 0;
  return {
    chatId,
    terms: plan.terms.map((term) => term.text),
    hits: rows.map((row) => {
      const shown = codePoints(row.snippet);
      const flat = row.snippet.replace(/\s+/g, ' ').trim();
      return {
        ref: messageRef(chatId, row.idx),
        index: row.idx,
        role: row.role,
        name: row.name,
        sentAt: iso(row.sent_at),
        score: Number(row.score),
        snippet: `${row.snippet_start > 0 ? '…' : ''}${flat}${row.snippet_start + shown < row.chars ? '…' : ''}`,
        snippetStart: row.snippet_start,
        chars: row.chars,
        cursor: encodeHistoryCursor(chatId, { index: row.idx + 1, end: null }),
      };
    }),
    matched: Math.min(matched, RANK_WINDOW),
    capped: matched > RANK_WINDOW,
  };
}

/** Table size and lexeme frequencies of the search vector, as ANALYZE last saw them; cached briefly. */
async function searchStats(db: Db): Promise<SearchStats> {
  const cached = statsCache.get(db);
  if (cached && Date.now() - cached.at < STATS_TTL_MS) return cached;
  const [row] = rowsOf<{ rows: number; elems: string[] | null; freqs: number[] | null }>(
    await db.execute(sql`
      select c.reltuples::float8 as rows, s.most_common_elems::text::text[] as elems, s.most_common_elem_freqs as freqs
      from pg_class c
      left join pg_stats s on s.schemaname = current_schema() and s.tablename = 'chat_messages' and s.attname = 'search'
      where c.oid = 'chat_messages'::regclass`),
  );
  const freqs = row?.freqs ?? [];
  const stats: SearchStats = {
    at: Date.now(),
    rows: Math.max(Number(row?.rows ?? 0), 0),
    frequency: new Map((row?.elems ?? []).map((lexeme, i) => [lexeme, Number(freqs[i] ?? 0)])),
  };
  statsCache.set(db, stats);
  return stats;
}

/** A new import changes the lexeme frequencies the search plans with. */
export function forgetSearchStats(db: Db): void {
  statsCache.delete(db);
}

async function requireChat(db: Db, chatId: string): Promise<void> {
  const [found] = await db.select({ id: chats.id }).from(chats).where(eq(chats.id, chatId)).limit(1);
  if (!found) throw notFound(`no chat ${chatId}`);
}
