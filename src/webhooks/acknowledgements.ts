import type { Database } from '../db/client.ts';
import { ACKNOWLEDGED, CHAIN_LOCKS, CLAIM_HEADS, unflushed, type Step } from './chain-sql.ts';
import type { Claimed } from './claimed-delivery.ts';
import { retryOnDeadlock } from '../db/sql-state.ts';

interface Waiting {
  head: Claimed;
  statusCode: number;
  latencyMs: number;
  /** Whether the chain goes on: its next head is claimed with the acknowledgement. */
  claimNext: boolean;
  resolve: (next: Claimed | undefined) => void;
  reject: (err: unknown) => void;
}

/** A deadlock victim is tried again this many times in all (an operator's redelivery, which takes no chain locks, can still meet an acknowledgement). */
const ATTEMPTS = 3;

/**
 * The acknowledgements of one job's chains. The chains run side by side, each waiting only for its
 * own calls; the receiver's answers that arrive in the same turn of the event loop are
 * acknowledged together, and the chains' next heads claimed, in one round trip: one transaction
 * of the chains' locks (CHAIN_LOCKS), the acknowledgements, then the claim sent with a COMMIT that
 * does not wait for the WAL flush (chain-sql.ts). So a job carrying several orders costs about
 * one round trip per round of calls, not one per call, and no chain waits on another's receiver.
 * Should the round trip fail, every chain in it fails and its events are sent again (at least once).
 */
export class Acknowledgements {
  private waiting: Waiting[] = [];

  constructor(
    private readonly database: Pick<Database, 'transaction'>,
    private readonly endpointId: number,
    private readonly leaseSeconds: number,
  ) {}

  /** Marks the head delivered; resolves with the chain's next head when claimNext (else undefined). */
  acknowledge(head: Claimed, answer: { statusCode: number; latencyMs: number }, claimNext: boolean): Promise<Claimed | undefined> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => void this.flush());
      this.waiting.push({ head, ...answer, claimNext, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    let next: Claimed[];
    try {
      next = await retryOnDeadlock(ATTEMPTS, () => this.commit(batch));
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    const byOrder = new Map(next.map((h) => [h.orderId, h]));
    for (const w of batch) w.resolve(w.claimNext ? byOrder.get(w.head.orderId) : undefined);
  }

  private commit(batch: readonly Waiting[]): Promise<Claimed[]> {
    const params = [
      this.endpointId,
      batch.map((w) => w.head.id),
      batch.map((w) => w.head.eventId),
      batch.map((w) => w.head.orderId),
      batch.map((w) => w.head.attempts),
      batch.map((w) => w.statusCode),
      batch.map((w) => w.latencyMs),
    ];
    const chains = batch.flatMap((w) => (w.head.orderId === null ? [] : [w.head.orderId]));
    const continuing = batch.filter((w) => w.claimNext && w.head.orderId !== null).map((w) => w.head.orderId);
    const steps: Step[] = [
      ...(chains.length > 0 ? [[CHAIN_LOCKS, [this.endpointId, chains]] as const] : []),
      [ACKNOWLEDGED, params],
      ...(continuing.length > 0 ? [[CLAIM_HEADS, [this.endpointId, continuing, this.leaseSeconds]] as const] : []),
    ];
    // Without a claim the last step is the acknowledgement, whose insert returns no rows.
    return unflushed<Claimed>(this.database, steps);
  }
}
