import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import postgres from 'postgres';
import { postgresDatabase, type Database } from './client.ts';
import { isProcessAlive } from '../process-alive.ts';

/**
 * The running service lends its embedded PGlite to the CLI over a local socket, so `fulfil
 * credentials …`, `inventory …` and `shipments history` work while it runs (PGlite itself is
 * one process's). The CLI finds the socket through a small file next to the database, as it finds
 * a private Redis.
 *
 * PGlite is one Postgres session shared by the service's own queries and every socket client, so
 * a client's work must never interleave with the service's: while a client is inside a protocol
 * exchange (until ReadyForQuery) or a transaction, it holds PGlite's transaction lock, which the
 * service's queries and transactions take too. A client that stalls holding it is cut off after
 * HOLD_LIMIT_MS and its transaction rolled back, so the service never waits on it for long.
 *
 * Whatever a client changed in the session (`SET default_transaction_read_only = on`, a role,
 * cursors, temporary tables) is undone as soon as its exchange ends, before the service gets
 * the session back: a client's settings would otherwise apply to every later command. One
 * thing is not bounded: a single long statement (`pg_sleep`, a huge scan). PGlite runs on the
 * service's event loop and has no working statement_timeout (its timers are the event loop's
 * own, which cannot fire while the statement runs), so nothing in the process can interrupt it.
 * The socket is this OS user's only, so only the service's own operator can do that.
 */

export interface EmbeddedAddress {
  /** A Unix socket path: never TCP, where any local user could connect (PGlite asks no password). */
  path: string;
  pid: number;
}

export const HOLD_LIMIT_MS = 15_000;
/** Unix socket paths longer than about 104 bytes cannot be bound (sun_path). */
const MAX_SOCKET_PATH = 100;

export function addressFile(pgliteDir: string): string {
  return `${path.resolve(pgliteDir)}.socket.json`;
}

/** The socket of a running service's embedded database, if one serves it. */
export function readEmbeddedAddress(pgliteDir: string): EmbeddedAddress | undefined {
  try {
    const a = JSON.parse(readFileSync(addressFile(pgliteDir), 'utf8')) as Partial<EmbeddedAddress>;
    return a.path && a.pid && isProcessAlive(a.pid) ? { path: a.path, pid: a.pid } : undefined;
  } catch {
    return undefined;
  }
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
/** Undoes a client's session state; DISCARD ALL would also UNLISTEN the service's own channels. */
const RESET_SESSION = 'RESET ALL; RESET SESSION AUTHORIZATION; CLOSE ALL; DISCARD TEMP';
function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8');
  const msg = Buffer.alloc(5 + body.length);
  msg[0] = 0x51;
  msg.writeInt32BE(4 + body.length, 1);
  body.copy(msg, 5);
  return msg;
}

/** The queue PGLiteSocketHandler sends every protocol message through (its QueryQueueManager, with the lock above). */
class ExclusiveQueue {
  private readonly queue: Pending[] = [];
  private owner: number | undefined;
  private release: (() => void) | undefined;
  private pumping = false;
  private holdTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Exclusive,
    private readonly onStall: (handlerId: number) => void,
  ) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.pump();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i]!.handlerId === handlerId) this.queue.splice(i, 1)[0]!.reject(new Error('connection closed'));
    }
  }

  /** A client gone mid-exchange: end its exchange, roll back its transaction, let the service go on. */
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
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, { onRawData: (d) => ((bytes += d.length), item.onData(d)) }),
          );
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
          this.holdTimer = setTimeout(() => this.onStall(owner), HOLD_LIMIT_MS);
        }
        item.resolve(bytes);
      }
    } finally {
      this.pumping = false;
    }
  }
}

export interface EmbeddedSocketServer {
  address: EmbeddedAddress;
  close(): Promise<void>;
}

/** Serves the service's PGlite on a Unix socket (mode 0600, in a 0700 directory: this user only). */
export async function serveEmbeddedDatabase(pglite: PGlite, pgliteDir: string): Promise<EmbeddedSocketServer> {
  const handlers = new Map<number, PGLiteSocketHandler>();
  const queue = new ExclusiveQueue(pglite as Exclusive, (id) => void handlers.get(id)?.detach(true));
  const server = net.createServer((socket) => {
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true, idleTimeout: 10 * 60_000 });
    handlers.set(handler.handlerId, handler);
    socket.on('close', () => handlers.delete(handler.handlerId));
    void handler.attach(socket);
  });
  // Next to the database when the path fits a socket address; else in a fresh directory of this
  // user's (0700) under the temporary directory, so the socket is never reachable by others.
  let socketPath = `${path.resolve(pgliteDir)}.sock`;
  let runtimeDir: string | undefined;
  if (socketPath.length > MAX_SOCKET_PATH) {
    const base = path.join(tmpdir(), 'fulfil-').length + 20 <= MAX_SOCKET_PATH ? tmpdir() : '/tmp';
    runtimeDir = mkdtempSync(path.join(base, 'fulfil-'));
    socketPath = path.join(runtimeDir, 'pglite.sock');
  }
  rmSync(socketPath, { force: true }); // left by a process that died; the lock file says we own the directory
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  chmodSync(socketPath, 0o600);
  const address: EmbeddedAddress = { path: socketPath, pid: process.pid };
  writeFileSync(addressFile(pgliteDir), `${JSON.stringify(address)}\n`, { mode: 0o600 });
  return {
    address,
    async close() {
      rmSync(addressFile(pgliteDir), { force: true });
      await Promise.all([...handlers.values()].map((h) => h.detach(true)));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (runtimeDir) rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
}

/**
 * A Database on a running service's embedded PGlite, for the CLI: one connection (the server
 * serialises anyway), no named prepared statements (the session is shared, names would clash),
 * no migrations (the service ran them at start).
 */
export async function openEmbeddedGuest(pgliteDir: string): Promise<Database | undefined> {
  const address = readEmbeddedAddress(pgliteDir);
  if (!address) return undefined;
  const sql = postgres({
    path: address.path,
    database: 'postgres',
    username: 'postgres',
    max: 1,
    prepare: false,
    connect_timeout: 10,
    onnotice: () => {},
    types: { int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } },
  });
  return postgresDatabase(sql, { prepare: false });
}
