-- Orders a seller refuses or both parties cancel, and the deadline every open order is watched
-- against (docs/LIFECYCLE.md, "Deadlines"). `deliver_by` is the contractual moment the tickets must
-- be in the buyer's hands, worked out from `in_hand_on` and the event's start by the service's
-- policy unless the order came with one; the two timers of an open order (the reminder at
-- `due_soon_at`, the deadline at `deliver_by`) fire once each: their `*_fired_at` are set under the
-- order's lock in the statement that appends the event, which is what makes a late or repeated
-- timer harmless. Orders from before have no deadline and no timers.
ALTER TABLE "orders" ADD COLUMN "in_hand_on" date;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "event_starts_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "deliver_by" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "due_soon_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "due_soon_fired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "overdue_fired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "rejection_reason" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "rejection_notes" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "closed_at" timestamp with time zone;--> statement-breakpoint
-- The open orders by deadline: the timer sweep, the overdue gauge and the operators' --overdue and
-- --due-within filters each read one range of it.
CREATE INDEX "orders_open_deliver_by_idx" ON "orders" USING btree ("deliver_by", "id") WHERE "state" in ('pending', 'accepted', 'cancel_proposed') and "deliver_by" is not null;
