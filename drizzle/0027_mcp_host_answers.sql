CREATE TABLE "mcp_host_answers" (
	"request_id" text NOT NULL,
	"session_id" text NOT NULL,
	"message" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mcp_host_answers_request_id_session_id_pk" PRIMARY KEY("request_id","session_id")
);
--> statement-breakpoint
CREATE INDEX "mcp_host_answers_expires_idx" ON "mcp_host_answers" USING btree ("expires_at");