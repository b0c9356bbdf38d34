DROP INDEX "commands_finished_idx";--> statement-breakpoint
DROP INDEX "commands_idempotency_key";--> statement-breakpoint
CREATE UNIQUE INDEX "commands_idempotency_key" ON "commands" USING btree ("brokerage_id","idempotency_key") WHERE idempotency_key is not null;