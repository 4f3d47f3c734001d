-- Identical open calls left by the race this migration closes: the oldest stays open (it is the one
-- a retry attached to), the others are closed as if delivered, so the unique index below can hold.
UPDATE "mcp_pending_calls" p SET "delivered_at" = now() WHERE p."delivered_at" IS NULL AND EXISTS (SELECT 1 FROM "mcp_pending_calls" q WHERE q."delivered_at" IS NULL AND q."user_id" = p."user_id" AND q."tool_name" = p."tool_name" AND q."arguments_hash" = p."arguments_hash" AND (q."created_at", q."call_id") < (p."created_at", p."call_id"));--> statement-breakpoint
DROP INDEX "mcp_pending_calls_open_idx";--> statement-breakpoint
ALTER TABLE "mcp_pending_calls" DROP CONSTRAINT "mcp_pending_calls_pkey";--> statement-breakpoint
ALTER TABLE "mcp_pending_calls" ALTER COLUMN "call_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "mcp_pending_calls" ADD COLUMN "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_pending_calls_open_idx" ON "mcp_pending_calls" USING btree ("user_id","tool_name","arguments_hash") WHERE "mcp_pending_calls"."delivered_at" is null;--> statement-breakpoint
ALTER TABLE "mcp_pending_calls" ADD CONSTRAINT "mcp_pending_calls_call_id_unique" UNIQUE("call_id");
