import { createHash } from 'node:crypto';
import type { JobName } from '../jobs/job-map.ts';

/**
 * What makes two requests "the same command" for idempotency: its name and its validated
 * payload (path ids included). HTTP, the producer client and the CLI all fingerprint this way,
 * so a command id means the same thing whoever sends it.
 */
export function requestFingerprint(name: JobName, payload: unknown): string {
  return createHash('sha256').update(JSON.stringify({ name, payload })).digest('hex');
}

export interface CommandIdentity {
  name: string;
  brokerageId: number;
  requestHash: string;
}

/** A command id reused for anything else than the command it was first used for is a conflict. */
export function isSameCommand(a: CommandIdentity, b: CommandIdentity): boolean {
  return a.name === b.name && a.brokerageId === b.brokerageId && a.requestHash === b.requestHash;
}
