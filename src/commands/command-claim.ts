import type { Envelope, JobName } from '@fulfil/contract';
import type { CommandClaim } from '../db/sql/claim-command.ts';
import { storedPayload } from './stored-payload.ts';

/** A job's command as its row holds it: the runner claims it, an exhausted job is recorded from it. */
export function commandClaimOf(name: JobName, job: Envelope<unknown> & { actor: { brokerageId: number } }): CommandClaim {
  return {
    commandId: job.commandId,
    name,
    brokerageId: job.actor.brokerageId,
    requestHash: job.requestHash,
    payload: JSON.stringify(storedPayload(name, job.payload)),
    actor: JSON.stringify(job.actor),
  };
}
