import type { Database } from '../db/client.ts';
import type { TimerKind } from './deadline-timers.ts';
import { fireTimers, type FireOutcome } from './fire-timer.ts';

interface Waiter {
  orderId: number;
  resolve(outcome: FireOutcome): void;
  reject(err: unknown): void;
}

interface Lane {
  queue: Waiter[];
  running: number;
}

/**
 * Group commit for the timer worker's jobs. A transaction per timer pays a COMMIT (its WAL flush)
 * and two round trips for each timer, so a worker with many jobs due together (1,000 a second) is
 * bound by commits, not work. Here the jobs of one kind share a transaction: a job
 * starts a batch at once when a slot is free (one job in flight waits for nothing), and jobs that
 * arrive while the batches run queue and go together in the next one, so a batch grows with the
 * load and one flush serves it. Two batches per kind may run at once, so one's round trips overlap
 * the other's; a batch that fails fails each of its jobs (BullMQ retries them), as a failed
 * single transaction did.
 */
export class FireBatcher {
  private readonly lanes = new Map<TimerKind, Lane>();

  constructor(
    private readonly database: Database,
    private readonly opts: { maxBatch: number; maxInFlight: number } = { maxBatch: 200, maxInFlight: 2 },
  ) {}

  /** The outcome of this order's timer, fired in whichever batch takes it. */
  fire(orderId: number, kind: TimerKind): Promise<FireOutcome> {
    return new Promise<FireOutcome>((resolve, reject) => {
      const lane = this.lane(kind);
      lane.queue.push({ orderId, resolve, reject });
      this.pump(kind, lane);
    });
  }

  private lane(kind: TimerKind): Lane {
    let lane = this.lanes.get(kind);
    if (!lane) this.lanes.set(kind, (lane = { queue: [], running: 0 }));
    return lane;
  }

  private pump(kind: TimerKind, lane: Lane): void {
    while (lane.running < this.opts.maxInFlight && lane.queue.length > 0) {
      const batch = lane.queue.splice(0, this.opts.maxBatch);
      lane.running++;
      void this.run(kind, batch).finally(() => {
        lane.running--;
        this.pump(kind, lane);
      });
    }
  }

  private async run(kind: TimerKind, batch: Waiter[]): Promise<void> {
    try {
      const outcomes = await fireTimers(
        this.database,
        kind,
        batch.map((w) => w.orderId),
      );
      batch.forEach((w, i) => w.resolve(outcomes[i]!));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
