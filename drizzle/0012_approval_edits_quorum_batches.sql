ALTER TABLE "tool_calls" ADD COLUMN "approvals_required" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "self_approval_forbidden" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "approvals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "caller" text DEFAULT 'MODEL' NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "turn_id" uuid;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "replaces" uuid;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "edit" jsonb;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_replaces_tool_calls_id_fk" FOREIGN KEY ("replaces") REFERENCES "public"."tool_calls"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tool_calls_turn_idx" ON "tool_calls" USING btree ("turn_id") WHERE "tool_calls"."turn_id" is not null;--> statement-breakpoint
UPDATE "tool_calls" SET "turn_id" = "model_turns"."id" FROM "model_turns" WHERE "tool_calls"."run_id" = "model_turns"."run_id" AND "tool_calls"."provider_call_id" IS NOT NULL AND "model_turns"."provider_call_ids" @> jsonb_build_array("tool_calls"."provider_call_id");--> statement-breakpoint
UPDATE "tool_calls" SET "caller" = 'PERSON' WHERE "turn_id" IS NULL AND ("requested_by" LIKE 'approver:%' OR "requested_by" LIKE 'admin:%');
