import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import postgres from 'postgres';
import { postgresDatabase, type Database } from './client.ts';
import type { EmbeddedThread } from './embedded-client.ts';
import { isProcessAlive } from '../process-alive.ts';

/**
 * The running service lends its embedded PGlite to the CLI over a local socket, so `fulfil
 * credentials …`, `inventory …` and `shipments history` work while it runs (PGlite itself is
 * one process's). The CLI finds the socket through a small file next to the database, as it finds
 * a private Redis.
 *
 * PGlite is one Postgres session shared by the service's own queries and every socket client.
 * The socket and its protocol framing live here, on the service's thread; every message goes to
 * the GuestQueue in PGlite's own thread (guest-queue.ts), which keeps a client's exchange or
 * transaction from interleaving with the service's queries, cuts off a client holding the session
 * idle past HOLD_LIMIT_MS, and undoes whatever a client changed in the session (`SET
 * default_transaction_read_only = on`, a role, cursors, temporary tables) before the service
 * gets it back.
 *
 * A single long statement (`pg_sleep`, a huge scan) is bounded by EMBEDDED_GUEST_STATEMENT_MS:
 * PGlite cannot interrupt a running statement (its statement_timeout never fires), so the
 * service thread restarts PGlite's thread (embedded-client.ts) and every client connection here
 * ends with a FATAL error saying why. Meanwhile the statement holds PGlite's thread only, never
 * the service's event loop: /livez and HTTP answer. The socket is this OS user's only.
 */

export interface EmbeddedAddress {
  /** A Unix socket path: never TCP, where any local user could connect (PGlite asks no password). */
  path: string;
  pid: number;
}

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

/**
 * Why a guest's connection ends when PGlite's thread restarts: an ErrorResponse and a
 * ReadyForQuery, so that a client waiting on a statement (postgres.js, psql) fails that statement
 * with this message rather than with a bare "connection closed"; the socket is closed after it.
 */
function goodbye(code: string, message: string): Buffer {
  const fields = Buffer.from(`SERROR\0VERROR\0C${code}\0M${message}\0\0`, 'utf8');
  const msg = Buffer.alloc(5 + fields.length + 6);
  msg[0] = 0x45;
  msg.writeInt32BE(4 + fields.length, 1);
  fields.copy(msg, 5);
  Buffer.from([0x5a, 0, 0, 0, 5, 0x49]).copy(msg, 5 + fields.length);
  return msg;
}

/**
 * What PGLiteSocketHandler calls on its query queue, forwarded to the GuestQueue in PGlite's
 * thread (guest-queue.ts). The handler and the socket stay on the service's thread, so a guest
 * can still be told why it is cut off while PGlite's thread is stuck in its statement.
 */
function remoteQueue(thread: EmbeddedThread) {
  return {
    enqueue: (handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void) =>
      thread.call({ op: 'guest', handlerId, message: message.slice() }, onData) as Promise<number>,
    getQueueLength: () => 0,
    // The guest is gone either way; a failure here means PGlite's thread is, and its sessions with it.
    clearQueueForHandler: (handlerId: number) => void thread.call({ op: 'guest-clear', handlerId }).catch(() => {}),
    clearTransactionIfNeeded: async (handlerId: number) => void (await thread.call({ op: 'guest-end', handlerId }).catch(() => {})),
  };
}

export interface EmbeddedSocketServer {
  address: EmbeddedAddress;
  close(): Promise<void>;
}

/** Serves the service's PGlite on a Unix socket (mode 0600, in a 0700 directory: this user only). */
export async function serveEmbeddedDatabase(thread: EmbeddedThread, pgliteDir: string): Promise<EmbeddedSocketServer> {
  const handlers = new Map<number, { handler: PGLiteSocketHandler; socket: net.Socket }>();
  const queue = remoteQueue(thread);
  thread.onStall((id) => void handlers.get(id)?.handler.detach(true));
  // A restart ends every guest's session (its transaction, its place in the queue): each is told
  // why and its connection closed; the one whose statement overran hears that it was stopped.
  thread.onRestart((why) => {
    for (const [id, { socket }] of handlers) {
      const message =
        id === why.overrun
          ? goodbye('57014', `canceling statement: ${why.reason}; the embedded database was restarted to stop it`)
          : goodbye('57P01', `terminating connection: the embedded database restarted (${why.reason})`);
      if (socket.writable) socket.end(message);
      handlers.delete(id);
    }
  });
  const server = net.createServer((socket) => {
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true, idleTimeout: 10 * 60_000 });
    handlers.set(handler.handlerId, { handler, socket });
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
      await Promise.all([...handlers.values()].map((h) => h.handler.detach(true)));
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
