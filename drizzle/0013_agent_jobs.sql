CREATE TABLE "agent_jobs" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"phase" text NOT NULL,
	"round" integer DEFAULT 0 NOT NULL,
	"stop_reason" text,
	"connection" text NOT NULL,
	"preset" jsonb,
	"preset_name" text,
	"prompt" text NOT NULL,
	"max_rounds" integer NOT NULL,
	"max_tokens" integer,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"reasoning_tokens" integer DEFAULT 0 NOT NULL,
	"principal" jsonb NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_rounds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"run_id" uuid NOT NULL,
	"round" integer NOT NULL,
	"turn_id" uuid NOT NULL,
	"calls" integer NOT NULL,
	"input_tokens" integer,
	"output_tokens" integer,
	"reasoning_tokens" integer,
	"attempts" integer NOT NULL,
	"duration_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_jobs" ADD CONSTRAINT "agent_jobs_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_rounds" ADD CONSTRAINT "agent_rounds_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_jobs_status_idx" ON "agent_jobs" USING btree ("status","lease_expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_rounds_run_round_idx" ON "agent_rounds" USING btree ("run_id","round");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_rounds_turn_idx" ON "agent_rounds" USING btree ("turn_id");