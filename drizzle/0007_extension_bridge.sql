CREATE TABLE "bridge_invocations" (
	"call_id" uuid PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"extension_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"local_name" text NOT NULL,
	"arguments" jsonb NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"answer" jsonb,
	"answered_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "extension_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"extension_id" text NOT NULL,
	"token_id" uuid NOT NULL,
	"hub_id" text NOT NULL,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tools" ADD COLUMN "display_name" text;--> statement-breakpoint
ALTER TABLE "tools" ADD COLUMN "approval_template" text;--> statement-breakpoint
CREATE INDEX "bridge_invocations_extension_idx" ON "bridge_invocations" USING btree ("extension_id","status");--> statement-breakpoint
CREATE INDEX "extension_connections_extension_idx" ON "extension_connections" USING btree ("extension_id","expires_at");