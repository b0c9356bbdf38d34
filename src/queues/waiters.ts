import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';

type Wake = () => void;

/**
 * One QueueEvents listener per queue per process, feeding a map of waiters by job id. A waiter
 * is only woken; the caller then reads the command's result from Postgres, which stays the one
 * source of truth (an event can be missed, a row cannot).
 */
export class CommandWaiters {
  private readonly waiting = new Map<string, Set<Wake>>();
  /** Once closing, no wait can be woken by an event any more. */
  closed = false;
  private readonly events: QueueEvents[];

  constructor(queueNames: readonly string[], opts: { prefix: string; connection: () => Redis; onError?: (err: Error) => void }) {
    this.events = queueNames.map(
      (name) => new QueueEvents(name, { prefix: opts.prefix, connection: opts.connection(), autorun: true }),
    );
    for (const qe of this.events) {
      const wake = ({ jobId }: { jobId: string }) => this.wake(jobId);
      qe.on('completed', wake);
      qe.on('failed', wake);
      // Without a listener an event-loop failure would surface as an unhandled rejection;
      // waiters time out and callers read Postgres anyway.
      qe.on('error', (err) => opts.onError?.(err));
    }
  }

  async ready(): Promise<void> {
    await Promise.all(this.events.map((e) => e.waitUntilReady()));
  }

  /**
   * Resolves true when the job reports finished, false after timeoutMs. Register before adding
   * the job, or check Postgres after registering, so a fast job is not missed.
   */
  wait(jobId: string, timeoutMs: number, signal?: AbortSignal): { done: Promise<boolean>; cancel: () => void } {
    let set = this.waiting.get(jobId);
    if (!set) this.waiting.set(jobId, (set = new Set()));
    let finish!: (v: boolean) => void;
    const done = new Promise<boolean>((resolve) => (finish = resolve));
    const wake: Wake = () => finish(true);
    set.add(wake);
    const timer = setTimeout(() => finish(false), timeoutMs);
    const cancel = () => finish(false);
    signal?.addEventListener('abort', cancel, { once: true });
    void done.finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      const s = this.waiting.get(jobId);
      s?.delete(wake);
      if (s && s.size === 0) this.waiting.delete(jobId);
    });
    return { done, cancel };
  }

  get size(): number {
    return this.waiting.size;
  }

  private wake(jobId: string): void {
    const set = this.waiting.get(jobId);
    if (set) for (const w of [...set]) w();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.waiting.values()) for (const w of [...set]) w();
    await Promise.all(this.events.map((e) => e.close()));
  }
}
