-- A lost envelope re-shipped (docs/DECISIONS.md D-155): the scans of its revoked number are still
-- stored, marked, and complete nothing. A defaulted column only: no row is rewritten.
ALTER TABLE "tracking_events" ADD COLUMN "revoked" boolean DEFAULT false NOT NULL;
