import type { PGlite } from '@electric-sql/pglite';

/**
 * The queue every protocol message of a CLI guest goes through, in the thread that runs PGlite
 * (embedded-thread.ts). PGlite is one Postgres session shared by the service's own queries and
 * every guest, so a guest's work must never interleave with the service's: while a guest is
 * inside a protocol exchange (until ReadyForQuery) or a transaction, it holds PGlite's
 * transaction lock, which the service's queries and transactions take too. A guest that stalls
 * holding it is reported after HOLD_LIMIT_MS (onStall) and cut off by the service side.
 *
 * Whatever a guest changed in the session (`SET default_transaction_read_only = on`, a role,
 * cursors, temporary tables) is undone as soon as its exchange ends, before the service gets the
 * session back: a guest's settings would otherwise apply to every later command.
 */

export const HOLD_LIMIT_MS = 15_000;

export interface GuestHooks {
  /** The guest's message starts running on PGlite: from here the statement bound counts. */
  onBusy(handlerId: number): void;
  onIdle(): void;
  onStall(handlerId: number): void;
}

interface Pending {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (n: number) => void;
  reject: (err: Error) => void;
}

type Exclusive = PGlite & { _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> };

const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);
/** Undoes a guest's session state; DISCARD ALL would also UNLISTEN the service's own channels. */
const RESET_SESSION = 'RESET ALL; RESET SESSION AUTHORIZATION; CLOSE ALL; DISCARD TEMP';
function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8');
  const msg = Buffer.alloc(5 + body.length);
  msg[0] = 0x51;
  msg.writeInt32BE(4 + body.length, 1);
  body.copy(msg, 5);
  return msg;
}

export class GuestQueue {
  private readonly queue: Pending[] = [];
  private readonly db: Exclusive;
  private owner: number | undefined;
  private release: (() => void) | undefined;
  private pumping = false;
  private holdTimer: NodeJS.Timeout | undefined;

  constructor(
    pglite: PGlite,
    private readonly hooks: GuestHooks,
  ) {
    this.db = pglite as Exclusive;
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.pump();
    });
  }

  clearQueueForHandler(handlerId: number): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i]!.handlerId === handlerId) this.queue.splice(i, 1)[0]!.reject(new Error('connection closed'));
    }
  }

  /** A guest gone mid-exchange: end its exchange, roll back its transaction, let the service go on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    await this.db.runExclusive(async () => {
      await this.db.execProtocolRaw(SYNC);
      if (this.db.isInTransaction()) await this.db.execProtocolRaw(simpleQuery('ROLLBACK'));
    });
    await this.resetSession();
    this.unlock();
    void this.pump();
  }

  private async resetSession(): Promise<void> {
    await this.db.runExclusive(() => this.db.execProtocolRaw(simpleQuery(RESET_SESSION)));
  }

  private lock(): Promise<void> {
    return new Promise((acquired) => {
      void this.db._runExclusiveTransaction(
        () =>
          new Promise<void>((done) => {
            this.release = done;
            acquired();
          }),
      );
    });
  }

  private unlock(): void {
    clearTimeout(this.holdTimer);
    this.owner = undefined;
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const i = this.owner === undefined ? 0 : this.queue.findIndex((p) => p.handlerId === this.owner);
        if (i < 0 || this.queue.length === 0) break;
        const item = this.queue.splice(i, 1)[0]!;
        clearTimeout(this.holdTimer);
        if (this.owner === undefined) {
          await this.lock();
          this.owner = item.handlerId;
        }
        let bytes = 0;
        try {
          await this.db.runExclusive(async () => {
            this.hooks.onBusy(item.handlerId);
            try {
              await this.db.execProtocolRawStream(item.message, { onRawData: (d) => ((bytes += d.length), item.onData(d)) });
            } finally {
              this.hooks.onIdle();
            }
          });
        } catch (err) {
          item.reject(err as Error);
          continue;
        }
        // Startup (no type byte), Query and Sync end an exchange with ReadyForQuery; outside a
        // transaction the session is then free for the service again.
        const type = item.message[0];
        const exchangeDone = type === 0 || type === 0x51 || type === 0x53 || type === 0x58;
        if (exchangeDone && !this.db.isInTransaction()) {
          await this.resetSession();
          this.unlock();
        } else {
          const owner = item.handlerId;
          this.holdTimer = setTimeout(() => this.hooks.onStall(owner), HOLD_LIMIT_MS);
        }
        item.resolve(bytes);
      }
    } finally {
      this.pumping = false;
    }
  }
}
