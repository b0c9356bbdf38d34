/** Whose calls a slot carries: a brokerage's endpoint. */
export interface SlotOwner {
  brokerageId: number;
  endpointId: number;
}

export interface SlotCaps {
  /** Calls in flight at once to one brokerage's endpoints. */
  perBrokerage: number;
  /** Calls in flight at once to one endpoint. */
  perEndpoint: number;
  /**
   * Slots a brokerage that already has calls in flight may not take: the last ones are kept for
   * brokerages with none, so a brokerage's first call finds a slot however many others hang.
   */
  reserve: number;
}

interface Waiter {
  owner: SlotOwner;
  want: number;
  resolve: (granted: number) => void;
}

/**
 * The receivers' calls a process may have in flight at once (WEBHOOK_CONCURRENCY), shared fairly
 * between brokerages. A hanging receiver holds its slot for the whole call deadline, so slots
 * handed out first come, first served let one brokerage's hanging endpoints take every slot and
 * make everyone else wait. Here no brokerage holds more than perBrokerage slots, no endpoint more
 * than perEndpoint, and the last `reserve` slots go only to brokerages with nothing in flight.
 * A caller gets between 1 and the slots it asked for (one per chain it runs side by side), as
 * many as are free to it now. Waiting callers are served brokerage by brokerage: the one with the
 * fewest calls in flight first, then in turn, so a brokerage with many jobs waiting cannot crowd
 * out one with a single job. A caller never waits while holding slots (it asks once, before its
 * claims), so no two callers can wait on each other.
 */
export class CallSlots {
  private free: number;
  private readonly byBrokerage = new Map<number, number>();
  private readonly byEndpoint = new Map<number, number>();
  /** Waiting callers per brokerage; the map's order is the turn order among brokerages. */
  private readonly waiting = new Map<number, Waiter[]>();
  private waiters = 0;

  constructor(
    readonly capacity: number,
    readonly caps: SlotCaps = { perBrokerage: capacity, perEndpoint: capacity, reserve: 0 },
  ) {
    this.free = capacity;
  }

  /** Slots this caller may take now (0: it would have to wait). */
  private room(owner: SlotOwner, want: number): number {
    const brokerage = this.byBrokerage.get(owner.brokerageId) ?? 0;
    const endpoint = this.byEndpoint.get(owner.endpointId) ?? 0;
    const unreserved = this.free - this.caps.reserve;
    // A brokerage with nothing in flight may take one slot of the reserve.
    const pool = brokerage === 0 ? Math.max(unreserved, Math.min(this.free, 1)) : unreserved;
    return Math.max(0, Math.min(want, pool, this.caps.perBrokerage - brokerage, this.caps.perEndpoint - endpoint));
  }

  private take(owner: SlotOwner, n: number): void {
    this.free -= n;
    this.byBrokerage.set(owner.brokerageId, (this.byBrokerage.get(owner.brokerageId) ?? 0) + n);
    this.byEndpoint.set(owner.endpointId, (this.byEndpoint.get(owner.endpointId) ?? 0) + n);
  }

  /** As many of `want` slots as are free to the caller now, without waiting; 0 if none. */
  tryAcquire(owner: SlotOwner, want: number): number {
    const n = this.room(owner, want);
    if (n > 0) this.take(owner, n);
    return n;
  }

  /**
   * Whether a caller that got nothing should wait here rather than come back later: not when its
   * brokerage already has as many callers waiting as it may have calls in flight, nor when as many
   * callers wait as there are slots. A job waiting here holds a place in the worker, and those
   * must stay open for other brokerages' jobs.
   */
  mayWait(owner: SlotOwner): boolean {
    const mine = this.waiting.get(owner.brokerageId)?.length ?? 0;
    return mine < this.caps.perBrokerage && this.waiters < this.capacity;
  }

  /** Resolves with 1 to `want` slots, now or once they are free to this caller. */
  acquire(owner: SlotOwner, want: number): Promise<number> {
    if (want < 1) throw new RangeError(`asked for ${want} call slots`);
    const n = this.tryAcquire(owner, want);
    if (n > 0) return Promise.resolve(n);
    return new Promise((resolve) => {
      const queue = this.waiting.get(owner.brokerageId) ?? [];
      queue.push({ owner, want, resolve });
      this.waiting.set(owner.brokerageId, queue);
      this.waiters++;
    });
  }

  release(owner: SlotOwner, n: number): void {
    if (n <= 0) return;
    this.free += n;
    this.lower(this.byBrokerage, owner.brokerageId, n);
    this.lower(this.byEndpoint, owner.endpointId, n);
    this.serve();
  }

  private lower(map: Map<number, number>, key: number, n: number): void {
    const left = (map.get(key) ?? 0) - n;
    if (left > 0) map.set(key, left);
    else map.delete(key);
  }

  /** Hands free slots to waiting callers, a brokerage at a time, the least served first. */
  private serve(): void {
    while (this.free > 0 && this.waiters > 0) {
      let chosen: { brokerageId: number; index: number; n: number; inFlight: number } | undefined;
      for (const [brokerageId, queue] of this.waiting) {
        const inFlight = this.byBrokerage.get(brokerageId) ?? 0;
        if (chosen && chosen.inFlight <= inFlight) continue;
        // First come, first served within a brokerage, passing over a caller whose endpoint is at its cap.
        const index = queue.findIndex((w) => this.room(w.owner, w.want) > 0);
        if (index >= 0) chosen = { brokerageId, index, n: this.room(queue[index]!.owner, queue[index]!.want), inFlight };
      }
      if (!chosen) return;
      const queue = this.waiting.get(chosen.brokerageId)!;
      const [waiter] = queue.splice(chosen.index, 1);
      this.waiters--;
      // Its turn is taken: to the back of the turn order.
      this.waiting.delete(chosen.brokerageId);
      if (queue.length > 0) this.waiting.set(chosen.brokerageId, queue);
      this.take(waiter!.owner, chosen.n);
      waiter!.resolve(chosen.n);
    }
  }

  get inFlight(): number {
    return this.capacity - this.free;
  }

  /** Calls in flight to one brokerage's endpoints. */
  inFlightOf(brokerageId: number): number {
    return this.byBrokerage.get(brokerageId) ?? 0;
  }
}
