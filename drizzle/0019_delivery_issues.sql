-- Delivery issues (issue 45): a buyer says the tickets did not arrive, the seller answers by
-- re-delivering (a reissue) or by pointing at the evidence, and the buyer resolves or escalates;
-- an operator closes an escalated issue with an outcome. `snapshot` is the persisted state of
-- machines/delivery-issue.ts, `state` its name for queries. At most one issue per order is still
-- undecided (open, seller_responded or escalated): the partial unique index is the last word on a
-- second one. `respond_by` is the durable escalation timer (src/timers/escalation-*.ts): it fires
-- once, under the order's lock, only while the issue is open, and `escalated_at` marks that it did.
CREATE TABLE "delivery_issues" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"shipment_id" bigint,
	"state" text NOT NULL,
	"snapshot" jsonb NOT NULL,
	"reason" text NOT NULL,
	"seats" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"notes" text,
	"opened_by_brokerage_id" bigint NOT NULL,
	"opened_by_user_id" bigint,
	"command_id" text NOT NULL,
	"opened_at" timestamp with time zone NOT NULL,
	"respond_by" timestamp with time zone NOT NULL,
	"responded_at" timestamp with time zone,
	"escalated_at" timestamp with time zone,
	"escalated_by" text,
	"resolved_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"outcome" text,
	"close_notes" text,
	CONSTRAINT "delivery_issues_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade,
	CONSTRAINT "delivery_issues_outcome" CHECK (("state" = 'closed') = ("outcome" IS NOT NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "delivery_issues_one_undecided" ON "delivery_issues" USING btree ("order_id") WHERE "state" in ('open', 'seller_responded', 'escalated');--> statement-breakpoint
CREATE INDEX "delivery_issues_order_idx" ON "delivery_issues" USING btree ("order_id", "id");--> statement-breakpoint
-- The escalation sweep and the open gauge read open issues by their deadline.
CREATE INDEX "delivery_issues_open_respond_by_idx" ON "delivery_issues" USING btree ("respond_by", "id") WHERE "state" = 'open';--> statement-breakpoint
-- The operators' page and the gauge read escalated issues, oldest first.
CREATE INDEX "delivery_issues_escalated_idx" ON "delivery_issues" USING btree ("escalated_at", "id") WHERE "state" = 'escalated';--> statement-breakpoint
-- Each answer of the seller: a reissue (new files, barcodes, link) or a response pointing at the
-- evidence (`kind`). The e-ticket set a reissue attached is `set_id`.
CREATE TABLE "delivery_issue_responses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"issue_id" bigint NOT NULL,
	"order_id" bigint NOT NULL,
	"shipment_id" bigint,
	"kind" text NOT NULL,
	"set_id" bigint,
	"tickets" jsonb,
	"transfer_source" text,
	"x_mobile_link" text,
	"notes" text,
	"brokerage_id" bigint NOT NULL,
	"user_id" bigint,
	"command_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "delivery_issue_responses_issue_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."delivery_issues"("id") ON DELETE cascade,
	CONSTRAINT "delivery_issue_responses_kind" CHECK ("kind" in ('reissue', 'response'))
);
--> statement-breakpoint
CREATE INDEX "delivery_issue_responses_issue_idx" ON "delivery_issue_responses" USING btree ("issue_id", "id");--> statement-breakpoint
-- The barcodes a shipment gave, once a reissue replaced some: the ones given at completion (or on
-- its e-tickets) are copied here by the first reissue, each later one adds its own; a replaced one
-- keeps its row with `revoked_at` and the reissue (`revoked_by`) that revoked it.
CREATE TABLE "shipment_barcodes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"shipment_id" bigint NOT NULL,
	"order_id" bigint NOT NULL,
	"seat" text,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"source" text NOT NULL,
	"given_at" timestamp with time zone NOT NULL,
	"given_by" bigint,
	"revoked_at" timestamp with time zone,
	"revoked_by" bigint,
	CONSTRAINT "shipment_barcodes_given_by_fk" FOREIGN KEY ("given_by") REFERENCES "public"."delivery_issue_responses"("id") ON DELETE set null,
	CONSTRAINT "shipment_barcodes_revoked_by_fk" FOREIGN KEY ("revoked_by") REFERENCES "public"."delivery_issue_responses"("id") ON DELETE set null,
	CONSTRAINT "shipment_barcodes_key" CHECK ("key" in ('barcode', 'primary_ticket_id', 'verification_id')),
	CONSTRAINT "shipment_barcodes_revoked" CHECK (("revoked_at" IS NULL) = ("revoked_by" IS NULL))
);
--> statement-breakpoint
CREATE INDEX "shipment_barcodes_shipment_idx" ON "shipment_barcodes" USING btree ("shipment_id", "id");--> statement-breakpoint
-- Each download of an e-ticket by a party (GET /v9/shipments/:id/etickets/:eticket_id): the
-- evidence of delivery. One-time links keep their own use in file_links.
CREATE TABLE "file_downloads" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"file_id" bigint NOT NULL,
	"shipment_id" bigint NOT NULL,
	"order_id" bigint NOT NULL,
	"brokerage_id" bigint NOT NULL,
	"user_id" bigint,
	"role" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "file_downloads_file_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."shipment_files"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX "file_downloads_order_idx" ON "file_downloads" USING btree ("order_id", "at");
