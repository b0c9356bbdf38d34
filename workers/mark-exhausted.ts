import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../src/db/client.ts';
import { commands } from '../src/db/schema.ts';
import { storedPayload } from '../src/commands/stored-payload.ts';
import type { Envelope, JobName } from '@fulfil/contract';

/**
 * A command whose job used up every attempt (infrastructure errors, or a bug) did nothing: its
 * transaction never committed. It is marked failed without a response, so its status says so and
 * a replay of it (same Idempotency-Key or command id) runs it again. A command no producer
 * recorded (a synchronous call, an upstream job: D-145) gets its row here, from its job, so the
 * failure is on record all the same.
 */
export async function markExhausted(
  database: Database,
  commandId: string,
  job?: { name: JobName; data: Envelope<unknown> },
): Promise<void> {
  if (job && typeof job.data.requestHash === 'string' && typeof job.data.actor?.brokerageId === 'number') {
    await database.db
      .insert(commands)
      .values({
        id: commandId,
        name: job.name,
        brokerageId: job.data.actor.brokerageId,
        requestHash: job.data.requestHash,
        payload: storedPayload(job.name, job.data.payload),
        actor: job.data.actor,
        status: 'failed',
        finishedAt: new Date(),
      })
      .onConflictDoUpdate({
        target: commands.id,
        set: { status: 'failed', finishedAt: new Date() },
        setWhere: isNull(commands.resultStatus),
      });
    return;
  }
  await database.db
    .update(commands)
    .set({ status: 'failed', finishedAt: new Date() })
    .where(and(eq(commands.id, commandId), isNull(commands.resultStatus)));
}
