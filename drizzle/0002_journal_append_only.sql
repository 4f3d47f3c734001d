-- The journal is append-only: history is never rewritten, whoever holds a connection.
CREATE FUNCTION ats_journal_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'journal_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER journal_events_append_only BEFORE UPDATE OR DELETE ON journal_events
  FOR EACH ROW EXECUTE FUNCTION ats_journal_append_only();
