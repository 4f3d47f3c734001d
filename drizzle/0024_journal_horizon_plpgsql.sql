-- The horizon is read on every journal read that a follower resumes from (the bus reads once per
-- notified commit). As a LANGUAGE sql function that Postgres cannot inline, its body (with the
-- pg_stat_activity view) was parsed and planned on every call: about 0.7 ms, more than every
-- other statement of a call together. PL/pgSQL keeps the plan for the session: about 0.04 ms.
-- Same body, same answer; STABLE, so it still runs in the snapshot of the statement that calls it
-- (the rows a reader gets and the horizon it gets with them agree). See 0019 for what it means.
CREATE OR REPLACE FUNCTION ats_journal_horizon() RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (coalesce(
    (SELECT min(x::text::bigint) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
      WHERE xid(x) NOT IN (
        SELECT a.backend_xid FROM pg_stat_activity a
        WHERE a.backend_xid IS NOT NULL
          AND a.datid IS DISTINCT FROM (SELECT oid FROM pg_database WHERE datname = current_database()))),
    pg_snapshot_xmax(pg_current_snapshot())::text::bigint) << 16) + (SELECT "offset" FROM journal_origin);
END;
$$;
