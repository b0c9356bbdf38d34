-- Two checks fewer per command (docs/DECISIONS.md D-142, D-144; WAL measured with pg_walinspect on
-- the scale bench). Each statement only drops a constraint: no rows are read or rewritten, so each
-- takes its table's lock for a moment only (docs/OPERATIONS.md, Upgrading).
--
-- shipment_events: no unique index on event_id (D-144). An event id is a random UUID (v4, 122 random
-- bits) that the service draws for each event it writes (eventMessage, src/db/sql/append-event.ts):
-- unique by how it is made. The index's only reader, the webhook claim (src/webhooks/chain-sql.ts), finds the
-- event by (order_id, seq), which the delivery row holds, through the unique index
-- shipment_events_order_seq, and checks event_id beside them. Its entry cost 130 bytes of WAL per command.
ALTER TABLE "shipment_events" DROP CONSTRAINT "shipment_events_event_id_unique";
--> statement-breakpoint
-- orders: no foreign key reviewer_id -> users (D-142). The accept reads the reviewer in the
-- transaction that sets it, in the statement that locks the order (src/db/sql/lock-order.ts), and is
-- refused unless it is a user of the caller's brokerage; no user is ever deleted. The key's check locked the user's row at every
-- accept (a Heap LOCK record and a MultiXact, about 25 bytes of WAL per command).
ALTER TABLE "orders" DROP CONSTRAINT "orders_reviewer_id_users_id_fk";
