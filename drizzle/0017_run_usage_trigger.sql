-- A run's budget counters (run_tool_usage) follow its calls in the transaction that writes them:
-- a call adds one to its tool's counter when it comes to count against the budget, and takes it
-- back when it stops counting (an edited call) or is deleted. Reading a run's usage then reads one
-- row per tool instead of every call the run has made.
CREATE FUNCTION ats_run_tool_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF OLD.counts_against_budget THEN
      UPDATE run_tool_usage SET calls = calls - 1 WHERE run_id = OLD.run_id AND tool_name = OLD.name;
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.counts_against_budget THEN
      INSERT INTO run_tool_usage (run_id, tool_name, calls) VALUES (NEW.run_id, NEW.name, 1)
      ON CONFLICT (run_id, tool_name) DO UPDATE SET calls = run_tool_usage.calls + 1;
    END IF;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER tool_calls_usage_insert AFTER INSERT ON tool_calls
  FOR EACH ROW WHEN (NEW.counts_against_budget) EXECUTE FUNCTION ats_run_tool_usage();
--> statement-breakpoint
-- Only an update that changes what the call counts toward runs the function at all.
CREATE TRIGGER tool_calls_usage_update AFTER UPDATE OF counts_against_budget, run_id, name ON tool_calls
  FOR EACH ROW
  WHEN ((OLD.counts_against_budget, OLD.run_id, OLD.name) IS DISTINCT FROM (NEW.counts_against_budget, NEW.run_id, NEW.name))
  EXECUTE FUNCTION ats_run_tool_usage();
--> statement-breakpoint
CREATE TRIGGER tool_calls_usage_delete AFTER DELETE ON tool_calls
  FOR EACH ROW WHEN (OLD.counts_against_budget) EXECUTE FUNCTION ats_run_tool_usage();
--> statement-breakpoint
-- The calls made before the counters existed. The triggers above already hold tool_calls against
-- writes (CREATE TRIGGER locks it until this migration commits), so no call is counted twice or missed.
INSERT INTO run_tool_usage (run_id, tool_name, calls)
SELECT run_id, name, count(*)::int FROM tool_calls WHERE counts_against_budget GROUP BY run_id, name;
