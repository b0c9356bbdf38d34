CREATE TABLE "brokerages" (
	"id" bigint PRIMARY KEY NOT NULL,
	"name" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credentials" (
	"token" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"user_id" bigint,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "credentials_kind_user" CHECK (("credentials"."kind" = 'user') = ("credentials"."user_id" is not null))
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" bigint PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"occurs_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "offices" (
	"id" bigint PRIMARY KEY NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"name" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" bigint PRIMARY KEY NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "addresses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"label" text,
	"name" text NOT NULL,
	"street_address" text NOT NULL,
	"extended_address" text,
	"locality" text NOT NULL,
	"region" text NOT NULL,
	"postal_code" text NOT NULL,
	"country_code" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_addresses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"label" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_numbers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"label" text,
	"country_code" text NOT NULL,
	"number" text NOT NULL,
	"extension" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" bigint PRIMARY KEY NOT NULL,
	"oid" text NOT NULL,
	"seller_office_id" bigint NOT NULL,
	"buyer_brokerage_id" bigint NOT NULL,
	"delivery" text NOT NULL,
	"quantity" integer NOT NULL,
	"recipient_name" text NOT NULL,
	"recipient_email" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"snapshot" jsonb,
	"reviewer_id" bigint,
	"seats" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"accepted_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	CONSTRAINT "orders_oid_unique" UNIQUE("oid")
);
--> statement-breakpoint
CREATE TABLE "shipments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"type" text NOT NULL,
	"state" text NOT NULL,
	"snapshot" jsonb NOT NULL,
	"replaced_by" bigint,
	"replaced_at" timestamp with time zone,
	"ship_to_name" text,
	"email_address_id" bigint,
	"x_mobile_link" text,
	"transfer_source" text,
	"ship_from_name" text,
	"ship_from_address_id" bigint,
	"ship_from_phone_number_id" bigint,
	"phone_number_id" bigint,
	"pickup_time_range" text,
	"pickup_instructions" text,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "commands" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"idempotency_key" text,
	"request_hash" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"result_status" integer,
	"result_body" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"topic" text NOT NULL,
	"order_id" bigint,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"relayed_at" timestamp with time zone,
	CONSTRAINT "outbox_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
CREATE TABLE "shipment_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"order_id" bigint NOT NULL,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"shipment_id" bigint,
	"new_shipment_id" bigint,
	"from_type" text,
	"to_type" text,
	"from_state" text,
	"to_state" text NOT NULL,
	"actor_brokerage_id" bigint,
	"actor_user_id" bigint,
	"actor_role" text,
	"command_id" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shipment_events_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
CREATE TABLE "seats" (
	"ticket_group_pk" bigint NOT NULL,
	"position" integer NOT NULL,
	"barcode" text,
	"primary_ticket_id" bigint,
	"seat" text NOT NULL,
	"verification_id" text,
	CONSTRAINT "seats_ticket_group_pk_position_pk" PRIMARY KEY("ticket_group_pk","position")
);
--> statement-breakpoint
CREATE TABLE "ticket_groups" (
	"pk" bigserial PRIMARY KEY NOT NULL,
	"office_id" bigint NOT NULL,
	"remote_id" bigint NOT NULL,
	"id" bigint,
	"event_id" bigint,
	"account_email" text,
	"cost" numeric(14, 2),
	"taxed_cost" numeric(14, 2),
	"price" numeric(14, 2),
	"face_value" numeric(14, 2),
	"discount" numeric(14, 2),
	"quantity" integer DEFAULT 0 NOT NULL,
	"format" text,
	"type" text,
	"view_type" text,
	"section" text,
	"row" text,
	"split_type" text,
	"split_override" integer[],
	"wheelchair_accessible" boolean DEFAULT false NOT NULL,
	"eticket" boolean DEFAULT false NOT NULL,
	"instant_delivery" boolean DEFAULT false NOT NULL,
	"in_hand" boolean DEFAULT false NOT NULL,
	"in_hand_on" date,
	"external_notes" text,
	"speculative" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_brokerage_id_brokerages_id_fk" FOREIGN KEY ("brokerage_id") REFERENCES "public"."brokerages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offices" ADD CONSTRAINT "offices_brokerage_id_brokerages_id_fk" FOREIGN KEY ("brokerage_id") REFERENCES "public"."brokerages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_brokerage_id_brokerages_id_fk" FOREIGN KEY ("brokerage_id") REFERENCES "public"."brokerages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_seller_office_id_offices_id_fk" FOREIGN KEY ("seller_office_id") REFERENCES "public"."offices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_buyer_brokerage_id_brokerages_id_fk" FOREIGN KEY ("buyer_brokerage_id") REFERENCES "public"."brokerages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_reviewer_id_users_id_fk" FOREIGN KEY ("reviewer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_email_address_id_email_addresses_id_fk" FOREIGN KEY ("email_address_id") REFERENCES "public"."email_addresses"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_ship_from_address_id_addresses_id_fk" FOREIGN KEY ("ship_from_address_id") REFERENCES "public"."addresses"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_ship_from_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("ship_from_phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commands" ADD CONSTRAINT "commands_brokerage_id_brokerages_id_fk" FOREIGN KEY ("brokerage_id") REFERENCES "public"."brokerages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment_events" ADD CONSTRAINT "shipment_events_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seats" ADD CONSTRAINT "seats_ticket_group_pk_ticket_groups_pk_fk" FOREIGN KEY ("ticket_group_pk") REFERENCES "public"."ticket_groups"("pk") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_groups" ADD CONSTRAINT "ticket_groups_office_id_offices_id_fk" FOREIGN KEY ("office_id") REFERENCES "public"."offices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credentials_brokerage_idx" ON "credentials" USING btree ("brokerage_id");--> statement-breakpoint
CREATE INDEX "offices_brokerage_idx" ON "offices" USING btree ("brokerage_id");--> statement-breakpoint
CREATE INDEX "users_brokerage_idx" ON "users" USING btree ("brokerage_id");--> statement-breakpoint
CREATE INDEX "orders_seller_office_idx" ON "orders" USING btree ("seller_office_id");--> statement-breakpoint
CREATE INDEX "orders_buyer_brokerage_idx" ON "orders" USING btree ("buyer_brokerage_id");--> statement-breakpoint
CREATE UNIQUE INDEX "shipments_one_live_per_order" ON "shipments" USING btree ("order_id") WHERE "shipments"."replaced_by" is null;--> statement-breakpoint
CREATE INDEX "shipments_order_idx" ON "shipments" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "commands_idempotency_key" ON "commands" USING btree ("brokerage_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "commands_created_idx" ON "commands" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "outbox_unrelayed_idx" ON "outbox" USING btree ("id") WHERE relayed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_events_order_seq" ON "shipment_events" USING btree ("order_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_groups_office_remote" ON "ticket_groups" USING btree ("office_id","remote_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_groups_service_id" ON "ticket_groups" USING btree ("id");--> statement-breakpoint
CREATE INDEX "ticket_groups_mapped_by_remote" ON "ticket_groups" USING btree ("office_id","remote_id") WHERE "ticket_groups"."id" is not null and "ticket_groups"."event_id" is not null;--> statement-breakpoint
CREATE INDEX "ticket_groups_unmapped_by_remote" ON "ticket_groups" USING btree ("office_id","remote_id") WHERE "ticket_groups"."id" is null and "ticket_groups"."event_id" is null;--> statement-breakpoint
CREATE INDEX "ticket_groups_mapped_by_id" ON "ticket_groups" USING btree ("office_id","id") WHERE "ticket_groups"."id" is not null and "ticket_groups"."event_id" is not null;