import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../src/db/client.ts';
import { commands } from '../src/db/schema.ts';
import type { CommandClaim } from '../src/db/sql/claim-command.ts';
import { named } from '../src/db/sql/named-params.ts';

// The failed row of a command no producer recorded, or the mark on the row there is.
const RECORD_FAILED = named<CommandClaim>(
  (p) => `
insert into commands (id, name, brokerage_id, request_hash, payload, actor, status, finished_at)
values (${p.commandId}, ${p.name}, ${p.brokerageId}::bigint, ${p.requestHash}, ${p.payload}::text::jsonb, ${p.actor}::text::jsonb, 'failed', now())
on conflict (id) do update set status = 'failed', finished_at = now() where commands.result_status is null`,
);

/**
 * A command whose job used up every attempt (infrastructure errors, or a bug) did nothing: its
 * transaction never committed. It is marked failed without a response, so its status says so and
 * a replay of it (same Idempotency-Key or command id) runs it again. A command no producer
 * recorded (a synchronous call, an upstream job: D-145) gets its row here, from its job's claim
 * (claim-command.ts, commandClaimOf), so the failure is on record all the same.
 */
export async function markExhausted(database: Database, commandId: string, claim?: CommandClaim): Promise<void> {
  if (claim) {
    await database.rows(RECORD_FAILED.text, RECORD_FAILED.params(claim));
    return;
  }
  await database.db
    .update(commands)
    .set({ status: 'failed', finishedAt: new Date() })
    .where(and(eq(commands.id, commandId), isNull(commands.resultStatus)));
}
