CREATE TABLE "mcp_connections" (
	"server_name" text NOT NULL,
	"process_id" text NOT NULL,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mcp_connections_server_name_process_id_pk" PRIMARY KEY("server_name","process_id")
);
--> statement-breakpoint
CREATE TABLE "profile_run_defaults" (
	"profile_id" text PRIMARY KEY NOT NULL,
	"denied_tool_strategy" text,
	"max_calls" integer,
	"max_calls_per_tool" integer,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "users" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "all_users" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "profiles" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "plan_nodes" jsonb;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "legacy_unbound" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "previous_token_hash" text;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "previous_valid_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "rotated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "owner_user_id" text;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "owner_user_id" text;--> statement-breakpoint
ALTER TABLE "mcp_connections" ADD CONSTRAINT "mcp_connections_server_name_mcp_servers_name_fk" FOREIGN KEY ("server_name") REFERENCES "public"."mcp_servers"("name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_previous_hash_idx" ON "api_tokens" USING btree ("previous_token_hash");--> statement-breakpoint
CREATE INDEX "runs_user_idx" ON "runs" USING btree ("user_id","created_at");--> statement-breakpoint
-- Tokens from before bindings: a person's token bound to one user now sees that user's runs; an
-- agent bound to a user keeps every profile. Unbound ones work again only once an admin binds them
-- or marks them legacy_unbound (docs/security.md).
UPDATE "api_tokens" SET "users" = jsonb_build_array("user_id"), "user_id" = NULL WHERE "role" IN ('APPROVER', 'VIEWER') AND "user_id" IS NOT NULL;--> statement-breakpoint
UPDATE "api_tokens" SET "profiles" = '["*"]'::jsonb WHERE "role" = 'AGENT' AND "user_id" IS NOT NULL;
