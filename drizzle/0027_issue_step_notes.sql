-- The buyer's words when resolving or escalating a delivery issue, kept on the issue beside the
-- operator's close_notes (docs/DECISIONS.md D-174): an operator deciding an escalated issue reads
-- them on the issue, the evidence and the ops page, not only in the step's event. Adding a
-- nullable column without a default rewrites no row and takes the table's lock for a moment only.
-- Issues resolved or escalated before it keep their words in their events' details only.
ALTER TABLE "delivery_issues" ADD COLUMN "resolution_notes" text;
--> statement-breakpoint
ALTER TABLE "delivery_issues" ADD COLUMN "escalation_notes" text;
