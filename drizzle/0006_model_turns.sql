CREATE TABLE "model_turns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"run_id" uuid NOT NULL,
	"index" integer NOT NULL,
	"provider" text NOT NULL,
	"response_hash" text NOT NULL,
	"native" text NOT NULL,
	"parts" jsonb NOT NULL,
	"provider_call_ids" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "model_turns" ADD CONSTRAINT "model_turns_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "model_turns_run_index_idx" ON "model_turns" USING btree ("run_id","index");--> statement-breakpoint
CREATE UNIQUE INDEX "model_turns_run_response_idx" ON "model_turns" USING btree ("run_id","response_hash");--> statement-breakpoint
CREATE INDEX "model_turns_run_idx" ON "model_turns" USING btree ("run_id","created_at");