import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { Unavailable } from '@fulfil/contract';
import { RateLimited } from '../http-errors.ts';
import { feedLongPollsGauge } from '../telemetry/metrics-registry.ts';
import { FEED_CHANNEL } from './feed-positions.ts';

export type WakeReason = 'event' | 'timeout' | 'gone' | 'closing';

/** One long-polling request of one brokerage. */
export interface FeedWaiter {
  /** Resolves when the brokerage's feed grew (since registering or the last call), after `ms`, when `signal` aborts, or at shutdown. */
  next(ms: number, signal: AbortSignal): Promise<WakeReason>;
  release(): void;
}

/** How many long polls may wait at once in this process. */
export interface FeedWaitLimits {
  /** All together; beyond, 503 with Retry-After (the process is full). */
  perProcess: number;
  /** Of one credential; beyond, 429 with Retry-After. */
  perCredential: number;
  /** Of one brokerage, all its credentials together; beyond, 429 with Retry-After. */
  perBrokerage: number;
}

/** A refused long poll's wait before trying again: a place frees when any of the caller's polls ends. */
const RETRY_AFTER_SECONDS = 1;

interface Entry {
  /** Notified while not waiting: the next call to next() returns at once. */
  pending: boolean;
  wake: ((reason: WakeReason) => void) | undefined;
}

/**
 * The long polls of GET /v9/events in this process: one LISTEN on FEED_CHANNEL (the relay
 * notifies it with the brokerage ids whose feed it extended, at commit) feeding a map of waiting
 * requests by brokerage. Never a connection per request, and never a queue: a poll past a limit
 * is answered at once. The process has a fixed number of places, so one credential or one
 * brokerage may only hold a few of them (429), else a single client holding them all would turn
 * every other brokerage's poll away (503) for as long as its own wait.
 */
export class FeedWaiters {
  private readonly byBrokerage = new Map<number, Set<Entry>>();
  private readonly byCredential = new Map<string, number>();
  private count = 0;
  private closing = false;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    readonly limits: FeedWaitLimits,
  ) {}

  async start(): Promise<void> {
    try {
      this.unlisten = await this.database.listen(FEED_CHANNEL, (payload) => this.notify(payload));
    } catch (err) {
      // Long polls then wait out their time and answer what the database has by then.
      this.log.warn({ err }, 'event feed cannot listen for notifications; long polls answer at their timeout');
    }
  }

  /** A place for one long poll of `credential` (its token) acting for `brokerageId`. */
  register(brokerageId: number, credential: string): FeedWaiter {
    if (this.closing) throw new Unavailable('the server is shutting down; poll again');
    const { perCredential, perBrokerage, perProcess } = this.limits;
    const ofCredential = this.byCredential.get(credential) ?? 0;
    if (ofCredential >= perCredential) throw capped(`${perCredential} long polls of this credential are already waiting`);
    let set = this.byBrokerage.get(brokerageId);
    if ((set?.size ?? 0) >= perBrokerage) throw capped(`${perBrokerage} long polls of your brokerage are already waiting`);
    if (this.count >= perProcess) {
      const full = new Unavailable('too many long polls waiting; poll again shortly');
      full.headers['retry-after'] = String(RETRY_AFTER_SECONDS);
      throw full;
    }
    const entry: Entry = { pending: false, wake: undefined };
    if (!set) this.byBrokerage.set(brokerageId, (set = new Set()));
    set.add(entry);
    this.byCredential.set(credential, ofCredential + 1);
    this.count++;
    feedLongPollsGauge.inc();
    let released = false;
    return {
      next: (ms, signal) => this.next(entry, ms, signal),
      release: () => {
        if (released) return;
        released = true;
        entry.wake?.('gone');
        this.count--;
        const left = (this.byCredential.get(credential) ?? 1) - 1;
        if (left > 0) this.byCredential.set(credential, left);
        else this.byCredential.delete(credential);
        feedLongPollsGauge.dec();
        set.delete(entry);
        if (set.size === 0 && this.byBrokerage.get(brokerageId) === set) this.byBrokerage.delete(brokerageId);
      },
    };
  }

  get waiting(): number {
    return this.count;
  }

  /** Answers every waiting request (each then returns what it has) and stops listening. */
  async close(): Promise<void> {
    this.closing = true;
    for (const set of this.byBrokerage.values()) for (const entry of set) entry.wake?.('closing');
    // Closing: every waiter is answered already, and the listening connection closes with the database.
    await this.unlisten?.().catch(() => {});
    this.unlisten = undefined;
  }

  private next(entry: Entry, ms: number, signal: AbortSignal): Promise<WakeReason> {
    if (this.closing) return Promise.resolve('closing');
    if (signal.aborted) return Promise.resolve('gone');
    if (entry.pending) {
      entry.pending = false;
      return Promise.resolve('event');
    }
    return new Promise((resolve) => {
      const done = (reason: WakeReason) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        entry.wake = undefined;
        resolve(reason);
      };
      const onAbort = () => done('gone');
      const timer = setTimeout(() => done('timeout'), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      entry.wake = done;
    });
  }

  private notify(payload: string): void {
    for (const id of payload.split(',')) {
      const set = this.byBrokerage.get(Number(id));
      if (!set) continue;
      for (const entry of set) {
        if (entry.wake) entry.wake('event');
        else entry.pending = true;
      }
    }
  }
}

function capped(what: string): RateLimited {
  return new RateLimited(RETRY_AFTER_SECONDS, `${what}; answer or end one of them first (retry after ${RETRY_AFTER_SECONDS} s)`);
}
