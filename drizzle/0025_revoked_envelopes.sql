-- A lost envelope re-shipped (docs/DECISIONS.md D-155): the scans of its revoked number are still
-- stored, marked, and complete nothing. A defaulted column only: no row is rewritten.
ALTER TABLE "tracking_events" ADD COLUMN "revoked" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- The buyer's confirmation window (D-156): set when a seller's `delivered` on a shipped envelope no
-- carrier tracks waits for the buyer; the timer (src/timers/receipt-timer.ts) reads it, the sweep
-- pages the orders that hold one through the partial index (few rows: open windows only).
ALTER TABLE "orders" ADD COLUMN "receipt_confirm_by" timestamp with time zone;
--> statement-breakpoint
CREATE INDEX "orders_receipt_confirm_by_idx" ON "orders" USING btree ("receipt_confirm_by","id") WHERE "receipt_confirm_by" IS NOT NULL;
