CREATE TABLE "mcp_pending_calls" (
	"call_id" uuid PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"arguments_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mcp_runs" (
	"token_id" uuid NOT NULL,
	"key" text NOT NULL,
	"run_id" uuid NOT NULL,
	"client_name" text NOT NULL,
	"client_version" text NOT NULL,
	"server" text,
	"session_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_runs_token_id_key_pk" PRIMARY KEY("token_id","key")
);
--> statement-breakpoint
CREATE TABLE "mcp_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_id" uuid NOT NULL,
	"server" text NOT NULL,
	"profile_id" text,
	"protocol_version" text NOT NULL,
	"client_name" text NOT NULL,
	"client_version" text NOT NULL,
	"client_capabilities" jsonb NOT NULL,
	"run_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "mcp_pending_calls" ADD CONSTRAINT "mcp_pending_calls_call_id_tool_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."tool_calls"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_runs" ADD CONSTRAINT "mcp_runs_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_pending_calls_open_idx" ON "mcp_pending_calls" USING btree ("user_id","tool_name","arguments_hash","created_at") WHERE "mcp_pending_calls"."delivered_at" is null;--> statement-breakpoint
CREATE INDEX "mcp_runs_run_idx" ON "mcp_runs" USING btree ("run_id");