import type { Logger } from 'pino';
import type { SqlRunner } from '../db/client.ts';
import { OUTBOX_CHANNEL } from './outbox-relay.ts';

const NOTIFY = `select pg_notify($1, '')`;
/** At most one NOTIFY per window per process; the relay gathers events for as long anyway. */
const WINDOW_MS = 25;

/**
 * Tells the outbox relay that a command of this process committed events. It was a trigger's
 * NOTIFY inside each command's transaction, but Postgres serialises the commits of transactions
 * that NOTIFY (one database-wide lock, held through the commit's WAL flush): 32 clients inserting
 * rows committed about 6,000 times a second here, and about 600 with the trigger
 * (docs/BENCHMARKS.md). So the command's transaction notifies nothing; afterwards the relay is
 * woken directly when it runs in this process, else by a NOTIFY of its own, sent at once after a
 * quiet spell and then at most once per window. A lost wake costs latency only: the relay's
 * safety poll (RELAY_INTERVAL_MS) finds the rows.
 */
export class RelayWake {
  private lastSentAt = -Infinity;
  private trailing: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly opts: {
      database: SqlRunner;
      log: Logger;
      /** Wakes the relay of this process when it is the active one; false when it is not (relay-leadership.ts). */
      local: () => boolean;
    },
  ) {}

  committed(): void {
    if (this.stopped || this.opts.local()) return;
    if (this.trailing) return;
    const wait = this.lastSentAt + WINDOW_MS - performance.now();
    if (wait <= 0) {
      this.send();
      return;
    }
    this.trailing = setTimeout(() => {
      this.trailing = undefined;
      this.send();
    }, wait);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.trailing);
  }

  private send(): void {
    if (this.stopped) return;
    this.lastSentAt = performance.now();
    this.opts.database.rows(NOTIFY, [OUTBOX_CHANNEL]).catch((err: unknown) => {
      this.opts.log.debug({ err }, 'could not wake the outbox relay; its poll will find the events');
    });
  }
}
