-- Holds (docs/API.md §Holds; D-211): an order waits for a reason (the venue has not released the
-- barcodes, a fraud review, a payment, a postponed event, the buyer's answer). While one is active
-- (released_at null) the order cannot be completed nor its files uploaded, and its deadline
-- timers wait. `release_at` is a durable timer: Postgres holds it, Redis one delayed job per order
-- for its earliest active hold. A new table and its indexes only.
CREATE TABLE "holds" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"reason" text NOT NULL,
	"notes" text,
	"handle" text,
	"seats" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"placed_by_party" text NOT NULL,
	"placed_by_brokerage_id" bigint,
	"placed_by_user_id" bigint,
	"placed_by_operator" text,
	"placed_at" timestamp with time zone NOT NULL,
	"release_at" timestamp with time zone,
	"released_at" timestamp with time zone,
	"released_by_party" text,
	"released_by_brokerage_id" bigint,
	"released_by_user_id" bigint,
	"released_by_operator" text,
	"release_why" text,
	"answer_notes" text,
	"answered_at" timestamp with time zone,
	"deadline_extended_ms" bigint DEFAULT 0 NOT NULL,
	"command_id" text
);
--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade;
--> statement-breakpoint
CREATE UNIQUE INDEX "holds_order_handle" ON "holds" USING btree ("order_id","handle");
--> statement-breakpoint
CREATE INDEX "holds_active_idx" ON "holds" USING btree ("order_id") WHERE "holds"."released_at" is null;
--> statement-breakpoint
CREATE INDEX "holds_release_due_idx" ON "holds" USING btree ("release_at","order_id") WHERE "holds"."released_at" is null and "holds"."release_at" is not null;
