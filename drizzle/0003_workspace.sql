CREATE TABLE "workspace_blobs" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_checkpoint_files" (
	"checkpoint_id" uuid NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	CONSTRAINT "workspace_checkpoint_files_checkpoint_id_path_pk" PRIMARY KEY("checkpoint_id","path")
);
--> statement-breakpoint
CREATE TABLE "workspace_checkpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" text NOT NULL,
	"number" integer NOT NULL,
	"reason" text NOT NULL,
	"label" text,
	"restored_from" uuid,
	"run_id" uuid,
	"call_id" uuid,
	"created_by" text NOT NULL,
	"file_count" integer NOT NULL,
	"total_bytes" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace_files" (
	"workspace_id" text NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_files_workspace_id_path_pk" PRIMARY KEY("workspace_id","path")
);
--> statement-breakpoint
CREATE TABLE "workspace_reads" (
	"run_id" uuid NOT NULL,
	"workspace_id" text NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"read_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_reads_run_id_workspace_id_path_pk" PRIMARY KEY("run_id","workspace_id","path")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"roots" jsonb NOT NULL,
	"last_checkpoint" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspace_checkpoint_files" ADD CONSTRAINT "workspace_checkpoint_files_checkpoint_id_workspace_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."workspace_checkpoints"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_checkpoint_files" ADD CONSTRAINT "workspace_checkpoint_files_sha256_workspace_blobs_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."workspace_blobs"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_checkpoints" ADD CONSTRAINT "workspace_checkpoints_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_files" ADD CONSTRAINT "workspace_files_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_files" ADD CONSTRAINT "workspace_files_sha256_workspace_blobs_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."workspace_blobs"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_reads" ADD CONSTRAINT "workspace_reads_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_checkpoints_number_idx" ON "workspace_checkpoints" USING btree ("workspace_id","number");--> statement-breakpoint
-- Checkpoints are immutable: restore and diff rely on history staying as it was made.
CREATE FUNCTION ats_workspace_checkpoint_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is immutable (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER workspace_checkpoints_immutable BEFORE UPDATE OR DELETE ON workspace_checkpoints
  FOR EACH ROW EXECUTE FUNCTION ats_workspace_checkpoint_immutable();
--> statement-breakpoint
CREATE TRIGGER workspace_checkpoint_files_immutable BEFORE UPDATE OR DELETE ON workspace_checkpoint_files
  FOR EACH ROW EXECUTE FUNCTION ats_workspace_checkpoint_immutable();
