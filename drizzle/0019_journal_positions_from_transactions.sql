CREATE TABLE "journal_origin" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"offset" bigint NOT NULL
);
--> statement-breakpoint
-- Journal positions come from the writing transaction's id instead of a counter row whose lock
-- every writer in the cluster waited on until commit. A transaction's events are numbered
-- (top-level transaction id << 16) + offset + 0, 1, 2…: unique without a lock, ordered by
-- transaction. Followers read only below ats_journal_horizon(), under which every transaction
-- that could still add an event has ended, so resuming after the last position seen skips nothing.
-- See docs/architecture.md, "Journal positions".
CREATE FUNCTION ats_journal_positions(n integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  base bigint := (pg_current_xact_id()::text::bigint << 16) + (SELECT "offset" FROM journal_origin);
  used bigint;
BEGIN
  -- Only this transaction writes in its range, and it sees its own rows (a rolled-back
  -- savepoint's rows are gone with their numbers, which may then be used again).
  SELECT coalesce(max(seq) + 1 - base, 0) INTO used FROM journal_events WHERE seq >= base AND seq < base + 65536;
  IF used + n > 65536 THEN
    RAISE EXCEPTION 'a transaction writes at most 65536 journal events (% already, % more)', used, n
      USING ERRCODE = 'program_limit_exceeded';
  END IF;
  RETURN base + used;
END;
$$;
--> statement-breakpoint
-- The lowest position a transaction still running could write: the oldest running transaction
-- of the statement's snapshot, or the next id when none runs. Transactions known to belong to
-- other databases of the cluster are left out (their ids are unique, so a stale list only ever
-- leaves out what is not ours); one that ended meanwhile is counted, which delays a read and can
-- make this horizon lower than one computed a moment before (see src/journal/read.ts).
CREATE FUNCTION ats_journal_horizon() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT (coalesce(
    (SELECT min(x::text::bigint) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
      WHERE xid(x) NOT IN (
        SELECT a.backend_xid FROM pg_stat_activity a
        WHERE a.backend_xid IS NOT NULL
          AND a.datid IS DISTINCT FROM (SELECT oid FROM pg_database WHERE datname = current_database()))),
    pg_snapshot_xmax(pg_current_snapshot())::text::bigint) << 16) + (SELECT "offset" FROM journal_origin)
$$;
--> statement-breakpoint
-- Makes the next transaction's positions larger than every stored one: here for the positions
-- the counter gave, and at every start for a database restored into a cluster with lower ids.
CREATE FUNCTION ats_journal_align() RETURNS void LANGUAGE sql AS $$
  UPDATE journal_origin
  SET "offset" = (SELECT max(seq) + 1 FROM journal_events) - (pg_current_xact_id()::text::bigint << 16)
  WHERE (SELECT max(seq) FROM journal_events) >= (pg_current_xact_id()::text::bigint << 16) + "offset"
$$;
--> statement-breakpoint
INSERT INTO journal_origin (id, "offset") VALUES (true, 0);
--> statement-breakpoint
SELECT ats_journal_align();
