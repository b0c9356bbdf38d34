-- Files of shipments (issue 32): e-tickets for the buyer and proofs of a mobile transfer.
-- Each file is stored once by the sha256 of its bytes; sets say which shipment holds which files;
-- one-time download links keep only the sha256 of their token.
CREATE TABLE "stored_files" (
	"sha256" text PRIMARY KEY NOT NULL,
	"bytes" integer NOT NULL,
	"media_type" text NOT NULL,
	"pages" integer,
	"width" integer,
	"height" integer,
	"content" bytea,
	"stored_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipment_file_sets" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"shipment_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"command_id" text NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"user_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"replaced_at" timestamp with time zone,
	CONSTRAINT "shipment_file_sets_command_id_unique" UNIQUE("command_id")
);
--> statement-breakpoint
CREATE TABLE "shipment_files" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"set_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"sha256" text NOT NULL,
	"seat" text,
	"barcode" text,
	"note" text
);
--> statement-breakpoint
CREATE TABLE "file_links" (
	"token_sha256" text PRIMARY KEY NOT NULL,
	"file_id" bigint NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"user_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"used_by" text
);
--> statement-breakpoint
ALTER TABLE "shipment_files" ADD CONSTRAINT "shipment_files_set_id_shipment_file_sets_id_fk" FOREIGN KEY ("set_id") REFERENCES "public"."shipment_file_sets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment_files" ADD CONSTRAINT "shipment_files_sha256_stored_files_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."stored_files"("sha256") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_links" ADD CONSTRAINT "file_links_file_id_shipment_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."shipment_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_file_sets_one_current" ON "shipment_file_sets" USING btree ("shipment_id") WHERE "shipment_file_sets"."kind" = 'etickets' and "shipment_file_sets"."replaced_at" is null;--> statement-breakpoint
CREATE INDEX "shipment_file_sets_shipment_idx" ON "shipment_file_sets" USING btree ("shipment_id","kind");--> statement-breakpoint
CREATE INDEX "shipment_file_sets_replaced_idx" ON "shipment_file_sets" USING btree ("replaced_at") WHERE "shipment_file_sets"."replaced_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_files_set_position" ON "shipment_files" USING btree ("set_id","position");--> statement-breakpoint
CREATE INDEX "shipment_files_sha256_idx" ON "shipment_files" USING btree ("sha256");
