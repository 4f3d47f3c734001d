CREATE TABLE "chat_messages" (
	"chat_id" text NOT NULL,
	"idx" integer NOT NULL,
	"line_number" integer NOT NULL,
	"role" text NOT NULL,
	"name" text NOT NULL,
	"text" text NOT NULL,
	"is_user" boolean NOT NULL,
	"is_system" boolean NOT NULL,
	"non_standard" boolean NOT NULL,
	"send_date" jsonb,
	"sent_at" timestamp with time zone,
	"raw" json NOT NULL,
	"eol" text NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (ats_chat_search_vector("text")) STORED NOT NULL,
	CONSTRAINT "chat_messages_chat_id_idx_pk" PRIMARY KEY("chat_id","idx")
);
--> statement-breakpoint
CREATE TABLE "chats" (
	"id" text PRIMARY KEY NOT NULL,
	"file_name" text,
	"header_shape" text NOT NULL,
	"user_name" text,
	"character_name" text,
	"create_date" timestamp with time zone,
	"header" json NOT NULL,
	"header_line" integer NOT NULL,
	"header_bom" boolean NOT NULL,
	"header_eol" text NOT NULL,
	"blank_lines" jsonb NOT NULL,
	"message_count" integer NOT NULL,
	"byte_size" integer NOT NULL,
	"sha256" text NOT NULL,
	"imported_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lorebook_entries" (
	"lorebook_id" uuid NOT NULL,
	"uid" integer NOT NULL,
	"ordinal" integer NOT NULL,
	"map_key" text,
	"name" text NOT NULL,
	"content" text NOT NULL,
	"fields" jsonb NOT NULL,
	"raw" json NOT NULL,
	CONSTRAINT "lorebook_entries_lorebook_id_ordinal_pk" PRIMARY KEY("lorebook_id","ordinal")
);
--> statement-breakpoint
CREATE TABLE "lorebooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"source" text NOT NULL,
	"file_name" text,
	"raw" json NOT NULL,
	"entry_count" integer NOT NULL,
	"imported_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_files" (
	"skill_name" text NOT NULL,
	"path" text NOT NULL,
	"content" text NOT NULL,
	"chars" integer NOT NULL,
	CONSTRAINT "skill_files_skill_name_path_pk" PRIMARY KEY("skill_name","path")
);
--> statement-breakpoint
CREATE TABLE "skill_reads" (
	"call_id" uuid PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"skill_name" text NOT NULL,
	"path" text NOT NULL,
	"chars" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"profile_id" text,
	"pattern" text NOT NULL,
	"effect" text NOT NULL,
	"reason" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skills" (
	"name" text PRIMARY KEY NOT NULL,
	"description" text NOT NULL,
	"license" text,
	"compatibility" text,
	"allowed_tools" jsonb NOT NULL,
	"front_matter" jsonb NOT NULL,
	"warnings" jsonb NOT NULL,
	"imported_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "worldinfo_activations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"run_id" uuid,
	"chat_id" text,
	"source" text NOT NULL,
	"entries" jsonb NOT NULL,
	"budget" jsonb,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lorebook_entries" ADD CONSTRAINT "lorebook_entries_lorebook_id_lorebooks_id_fk" FOREIGN KEY ("lorebook_id") REFERENCES "public"."lorebooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_files" ADD CONSTRAINT "skill_files_skill_name_skills_name_fk" FOREIGN KEY ("skill_name") REFERENCES "public"."skills"("name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_search_idx" ON "chat_messages" USING gin ("search");--> statement-breakpoint
CREATE INDEX "chat_messages_latin_trgm_idx" ON "chat_messages" USING gin (ats_latin_text("text") gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "lorebook_entries_uid_idx" ON "lorebook_entries" USING btree ("lorebook_id","uid");--> statement-breakpoint
CREATE INDEX "skill_reads_run_idx" ON "skill_reads" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "skill_rules_profile_idx" ON "skill_rules" USING btree ("profile_id");--> statement-breakpoint
CREATE INDEX "worldinfo_activations_run_idx" ON "worldinfo_activations" USING btree ("run_id","created_at");--> statement-breakpoint
CREATE INDEX "worldinfo_activations_chat_idx" ON "worldinfo_activations" USING btree ("chat_id","created_at");