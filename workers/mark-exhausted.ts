import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../src/db/client.ts';
import { commands } from '../src/db/schema.ts';

/**
 * A command whose job used up every attempt (infrastructure errors, or a bug) did nothing: its
 * transaction never committed. It is marked failed without a response, so its status says so and
 * a replay of it (same Idempotency-Key or command id) runs it again.
 */
export async function markExhausted(database: Database, commandId: string): Promise<void> {
  await database.db
    .update(commands)
    .set({ status: 'failed', finishedAt: new Date() })
    .where(and(eq(commands.id, commandId), isNull(commands.resultStatus)));
}
