import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { commands } from '../db/schema.ts';
import { commandOutcome, type CommandOutcome } from './command-outcome.ts';

export interface CommandStatusJson {
  id: string;
  name: string;
  /** succeeded (2xx answer), refused (4xx answer), failed (no answer: attempts used up), else queued or running. */
  status: CommandOutcome;
  created_at: string;
  finished_at: string | null;
  /** Once finished: exactly what the synchronous call would have answered. */
  response?: { status: number; body: unknown };
}

/** A command as its own brokerage may see it; another brokerage's command does not exist. */
export async function commandStatus(ex: Executor, id: string, brokerageId: number): Promise<CommandStatusJson | undefined> {
  const [row] = await ex
    .select()
    .from(commands)
    .where(and(eq(commands.id, id), eq(commands.brokerageId, brokerageId)));
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    status: commandOutcome(row.status, row.resultStatus),
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    ...(row.resultStatus !== null ? { response: { status: row.resultStatus, body: row.resultBody } } : {}),
  };
}
