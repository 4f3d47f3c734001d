-- Journal positions no longer come from this counter row (see 0019), and nothing reads it.
DROP TABLE "journal_counter" CASCADE;