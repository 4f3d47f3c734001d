CREATE TABLE "upstream_credentials" (
	"user_id" text NOT NULL,
	"server_name" text NOT NULL,
	"source" text NOT NULL,
	"key_id" text NOT NULL,
	"iv" "bytea" NOT NULL,
	"ciphertext" "bytea" NOT NULL,
	"auth_tag" "bytea" NOT NULL,
	"expires_at" timestamp with time zone,
	"set_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upstream_credentials_user_id_server_name_pk" PRIMARY KEY("user_id","server_name")
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "user_credential" jsonb;--> statement-breakpoint
ALTER TABLE "upstream_credentials" ADD CONSTRAINT "upstream_credentials_server_name_mcp_servers_name_fk" FOREIGN KEY ("server_name") REFERENCES "public"."mcp_servers"("name") ON DELETE cascade ON UPDATE no action;