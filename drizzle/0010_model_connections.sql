CREATE TABLE "model_connections" (
	"name" text PRIMARY KEY NOT NULL,
	"wire_format" text NOT NULL,
	"base_url" text NOT NULL,
	"model" text NOT NULL,
	"sampling" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"timeout_ms" integer NOT NULL,
	"api_key" text,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
