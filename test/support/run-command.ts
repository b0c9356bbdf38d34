import { expect } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { DEFAULT_DEADLINE_POLICY } from '../../src/domain/deadline-policy.ts';
import { createLogger } from '../../src/logger.ts';
import type { Handler } from '../../workers/handler.ts';
import { runCommand, type RunResult } from '../../workers/runner.ts';
import type { Envelope, JobName } from '@fulfil/contract';

/** One delivery of a job straight to its handler, as a worker runs it (no queue). */
export function runJob<N extends JobName>(database: Database, handler: Handler<N>, envelope: Envelope<unknown>): Promise<RunResult> {
  return runCommand(database, handler, envelope, { log: createLogger('silent'), deadlines: DEFAULT_DEADLINE_POLICY });
}

/**
 * The same job delivered twice at once (a retry beside a second worker), then once more: every
 * delivery must answer 200 and the same body. Returns that answer.
 */
export async function deliveredThrice<N extends JobName>(
  database: Database,
  handler: Handler<N>,
  envelope: Envelope<unknown>,
): Promise<RunResult> {
  const [a, b] = await Promise.all([runJob(database, handler, envelope), runJob(database, handler, envelope)]);
  const c = await runJob(database, handler, envelope);
  expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
  expect(b.body).toEqual(a.body);
  expect(c.body).toEqual(a.body);
  return a;
}
