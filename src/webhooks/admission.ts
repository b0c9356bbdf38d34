import type { SqlRunner } from '../db/client.ts';
import type { Breakers } from './breaker.ts';
import type { CallSlots, SlotOwner } from './call-slots.ts';

export type DeferReason = 'breaker' | 'retry_after' | 'busy';

/**
 * Thrown by a job that should not run now: its endpoint's breaker is open (or its receiver asked
 * for a pause with Retry-After), or its brokerage has its share of the slots and enough jobs
 * waiting already. The worker moves the job back to the queue, delayed until untilMs, so it
 * holds neither a call slot nor a place in the worker meanwhile. Nothing was claimed.
 */
export class DeferJob extends Error {
  constructor(
    readonly untilMs: number,
    readonly reason: DeferReason,
  ) {
    super(`webhook job deferred (${reason})`);
  }
}

/** How long a job that found its brokerage busy stays away: about a second, spread so jobs do not return together. */
const BUSY_MS = 1_000;

/** The brokerage of each endpoint, read once per process: an endpoint never changes brokerage. */
export class EndpointOwners {
  private readonly known = new Map<number, number>();

  constructor(private readonly database: Pick<SqlRunner, 'rows'>) {}

  /** undefined: the endpoint is gone, and owed nothing. */
  async of(endpointId: number): Promise<SlotOwner | undefined> {
    let brokerageId = this.known.get(endpointId);
    if (brokerageId === undefined) {
      const [row] = await this.database.rows<{ brokerageId: number }>(
        'select brokerage_id::float8 as "brokerageId" from webhook_endpoints where id = $1',
        [endpointId],
      );
      if (!row) return undefined;
      brokerageId = row.brokerageId;
      // Deleted endpoints' entries are never read again; a bound keeps them from piling up.
      if (this.known.size >= 10_000) this.known.clear();
      this.known.set(endpointId, brokerageId);
    }
    return { brokerageId, endpointId };
  }
}

export interface AdmissionDeps {
  slots: CallSlots;
  breakers: Breakers;
}

/**
 * Call slots for up to `want` of one endpoint's chains: as many as are free to it now (one only
 * when the job is the breaker's probe). When the breaker holds the endpoint, or the job would
 * wait behind its own brokerage's many jobs, a job that can be deferred (canDefer: a BullMQ job)
 * throws DeferJob; one that cannot (a job run by hand) waits here instead.
 */
export async function admit(deps: AdmissionDeps, owner: SlotOwner, want: number, canDefer: boolean): Promise<number> {
  for (;;) {
    const gate = deps.breakers.gate(owner.endpointId);
    if (!gate.pass) {
      if (canDefer) throw new DeferJob(gate.untilMs + Math.random() * 1_000, gate.reason);
      await sleep(gate.untilMs - Date.now());
      continue;
    }
    const ask = gate.probe ? 1 : want;
    const now = deps.slots.tryAcquire(owner, ask);
    if (now > 0) return now;
    if (canDefer && !deps.slots.mayWait(owner)) throw new DeferJob(Date.now() + BUSY_MS * (0.5 + Math.random()), 'busy');
    const lanes = await deps.slots.acquire(owner, ask);
    // The breaker may have opened while the job waited for its slots.
    if (gate.probe || deps.breakers.closed(owner.endpointId)) return lanes;
    deps.slots.release(owner, lanes);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
