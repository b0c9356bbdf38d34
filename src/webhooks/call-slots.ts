/**
 * The receivers' calls a process may have in flight at once (WEBHOOK_CONCURRENCY). A job takes the
 * slots for all the chains it runs side by side before it claims their heads, since a claim starts
 * a lease and a call that waited for a slot could outlive it. Jobs waiting for slots are served in
 * the order they asked, so a job carrying many orders is not passed over by small ones; a job
 * never waits while holding slots, so no two jobs can wait on each other.
 */
export class CallSlots {
  private free: number;
  private readonly waiting: { n: number; resolve: () => void }[] = [];

  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  /** Resolves once n slots (n ≤ capacity) are this caller's. */
  acquire(n: number): Promise<void> {
    if (n > this.capacity) throw new RangeError(`asked for ${n} call slots of ${this.capacity}`);
    if (this.waiting.length === 0 && this.free >= n) {
      this.free -= n;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ n, resolve }));
  }

  release(n: number): void {
    this.free += n;
    while (this.waiting.length > 0 && this.waiting[0]!.n <= this.free) {
      const next = this.waiting.shift()!;
      this.free -= next.n;
      next.resolve();
    }
  }

  get inFlight(): number {
    return this.capacity - this.free;
  }
}
