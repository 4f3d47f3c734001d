-- Chat search (src/domain/chat-search.ts explains the design). The CJK class below must stay
-- identical to CJK_RANGES there: Hiragana, Katakana, CJK Extension A, Unified Ideographs, Hangul,
-- compatibility ideographs, Extensions B-H.
-- pg_trgm is a trusted extension (Postgres 13+): a database owner may create it. PGlite loads it
-- when the database is opened (src/db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- Every two-character window of every CJK run: the default parser keeps a CJK run as one word,
-- so without these a Chinese query finds nothing. Repeats are left in: array_to_tsvector drops them.
CREATE FUNCTION ats_cjk_bigrams(input text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(substr(run[1], i, 2)), '{}')
  FROM regexp_matches(input, '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U000323af]{2,})', 'g') AS run,
       generate_series(1, char_length(run[1]) - 1) AS i
$$;
--> statement-breakpoint
-- The text with CJK runs blanked out: what the `simple` parser and the trigram index read.
CREATE FUNCTION ats_latin_text(input text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT regexp_replace(input, '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U000323af]+', ' ', 'g')
$$;
--> statement-breakpoint
CREATE FUNCTION ats_chat_search_vector(input text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT to_tsvector('simple'::regconfig, ats_latin_text(input)) || array_to_tsvector(ats_cjk_bigrams(input))
$$;
