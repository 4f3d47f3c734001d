CREATE TABLE "run_tool_usage" (
	"run_id" uuid NOT NULL,
	"tool_name" text NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "run_tool_usage_run_id_tool_name_pk" PRIMARY KEY("run_id","tool_name")
);
--> statement-breakpoint
ALTER TABLE "run_tool_usage" ADD CONSTRAINT "run_tool_usage_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;