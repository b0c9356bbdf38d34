-- An event's data is the shipment version it produced. Completion changes its shipment in place
-- (the shipment keeps its id), so the completing statement first keeps, on the event that made
-- that version, the version as it was (src/db/sql/complete-shipment.ts); event objects show it.
-- Events of shipments completed before this migration keep none: theirs shows the completion.
ALTER TABLE "shipment_events" ADD COLUMN "shipment_as_left" jsonb;
