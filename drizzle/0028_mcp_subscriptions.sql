CREATE TABLE "mcp_subscriptions" (
	"session_id" text NOT NULL,
	"uri" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_subscriptions_session_id_uri_pk" PRIMARY KEY("session_id","uri")
);
--> statement-breakpoint
CREATE TABLE "mcp_upstream_sessions" (
	"session_id" text PRIMARY KEY NOT NULL,
	"upstream_session_id" text NOT NULL,
	"protocol_version" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_subscriptions" ADD CONSTRAINT "mcp_subscriptions_session_id_mcp_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."mcp_sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_upstream_sessions" ADD CONSTRAINT "mcp_upstream_sessions_session_id_mcp_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."mcp_sessions"("id") ON DELETE no action ON UPDATE no action;