-- An endpoint that receives every event kind is stored as NULL, so a kind added later reaches it
-- (src/webhooks/fan-out.ts). Endpoints created without event_kinds used to store the list of every
-- kind there was; a list holding each of today's kinds is taken for that default.
ALTER TABLE "webhook_endpoints" ALTER COLUMN "event_kinds" DROP NOT NULL;--> statement-breakpoint
UPDATE "webhook_endpoints" SET "event_kinds" = NULL
WHERE "event_kinds" @> ARRAY['created', 'updated', 'pickup_details', 'delivered', 'completed']::text[]
  AND "event_kinds" <@ ARRAY['created', 'updated', 'pickup_details', 'delivered', 'completed']::text[];--> statement-breakpoint
-- An event is caused by a party's command (actor_type party: brokerage, role and command id), or
-- by the service itself, a deadline passing or an operator acting (system: a reason, no party, no
-- command). Every event so far was a party's; the default keeps writers of the previous version
-- correct while both run.
ALTER TABLE "shipment_events" ADD COLUMN "actor_type" text DEFAULT 'party' NOT NULL;--> statement-breakpoint
ALTER TABLE "shipment_events" ADD COLUMN "actor_reason" text;--> statement-breakpoint
ALTER TABLE "shipment_events" ADD CONSTRAINT "shipment_events_actor" CHECK ((actor_type = 'party' and actor_brokerage_id is not null and actor_role in ('seller', 'buyer') and command_id is not null and actor_reason is null)
        or (actor_type = 'system' and actor_brokerage_id is null and actor_user_id is null and actor_role is null and command_id is null and actor_reason is not null));
