CREATE TABLE "journal_counter" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"last_seq" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "journal_events" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"run_id" uuid,
	"call_id" uuid,
	"actor" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resource_links" (
	"uri" text NOT NULL,
	"run_id" uuid NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resources" (
	"uri" text PRIMARY KEY NOT NULL,
	"sha256" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"status" text NOT NULL,
	"user_id" text,
	"profile_id" text,
	"plan_node_id" text,
	"chat_id" text,
	"workspace_id" text,
	"denied_tool_strategy" text NOT NULL,
	"max_calls" integer,
	"max_calls_per_tool" integer,
	"failure" jsonb,
	"created_by_token" uuid,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "tool_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"run_id" uuid NOT NULL,
	"name" text NOT NULL,
	"arguments" jsonb NOT NULL,
	"arguments_hash" text NOT NULL,
	"provider_call_id" text,
	"provider_metadata" jsonb,
	"idempotency_key" text,
	"status" text NOT NULL,
	"approval_required" boolean DEFAULT false NOT NULL,
	"policy_reason" text,
	"tool" jsonb,
	"counts_against_budget" boolean DEFAULT false NOT NULL,
	"timeout_ms" integer,
	"max_output_tokens" integer,
	"approval_expires_at" timestamp with time zone,
	"decision" jsonb,
	"result" jsonb,
	"error" jsonb,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"requested_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "resource_links" ADD CONSTRAINT "resource_links_uri_resources_uri_fk" FOREIGN KEY ("uri") REFERENCES "public"."resources"("uri") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_links" ADD CONSTRAINT "resource_links_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "journal_events_run_idx" ON "journal_events" USING btree ("run_id","seq");--> statement-breakpoint
CREATE INDEX "journal_events_call_idx" ON "journal_events" USING btree ("call_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "resource_links_uri_run_idx" ON "resource_links" USING btree ("uri","run_id");--> statement-breakpoint
CREATE INDEX "runs_status_idx" ON "runs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "tool_calls_run_idx" ON "tool_calls" USING btree ("run_id","created_at");--> statement-breakpoint
CREATE INDEX "tool_calls_status_idx" ON "tool_calls" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "tool_calls_provider_call_idx" ON "tool_calls" USING btree ("run_id","provider_call_id") WHERE "tool_calls"."provider_call_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "tool_calls_idempotency_idx" ON "tool_calls" USING btree ("run_id","idempotency_key") WHERE "tool_calls"."idempotency_key" is not null;