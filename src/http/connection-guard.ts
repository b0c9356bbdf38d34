import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';

export interface ConnectionLimits {
  /** Open connections at once (HTTP_MAX_CONNECTIONS). */
  max: number;
  /** Open connections of one client address (HTTP_MAX_CONNECTIONS_PER_ADDRESS); 0: no limit of its own. */
  perAddress: number;
  /** An idle keep-alive connection is closed after this once the server is under pressure. */
  pressureIdleMs: number;
}

interface Tracked {
  address: string;
  /** Requests read and not yet answered. */
  busy: number;
  /** When the connection last became idle (opened, or its last answer sent). */
  idleSince: number;
}

/** The limits a configuration sets (README, HTTP_MAX_CONNECTIONS and HTTP_MAX_CONNECTIONS_PER_ADDRESS). */
export function connectionLimits(config: Config): ConnectionLimits {
  const perAddress =
    config.HTTP_MAX_CONNECTIONS_PER_ADDRESS ??
    (config.TRUST_PROXY === false ? Math.max(1, Math.ceil(config.HTTP_MAX_CONNECTIONS / 10)) : 0);
  return { max: config.HTTP_MAX_CONNECTIONS, perAddress, pressureIdleMs: Math.min(PRESSURE_IDLE_MS, config.HTTP_KEEP_ALIVE_TIMEOUT_MS) };
}

/** Under pressure an idle keep-alive connection is closed after this instead of the keep-alive timeout. */
const PRESSURE_IDLE_MS = 2_000;

/** Above this share of `max` the server is under pressure: idle connections get a short timeout. */
const PRESSURE = 0.8;

/**
 * Keeps one client from holding every connection slot. Node's own `maxConnections` closes new
 * connections at the cap whoever holds the rest, so 1,000 idle keep-alive sockets of one client
 * lock everyone else out for the keep-alive timeout. Here instead: one address gets at most
 * `perAddress` connections (its own idle ones are closed first to make room); at the cap, the
 * longest-idle connection of anyone is closed for a new one, and only when none is idle is the
 * new one refused; under pressure, connections idle longer than `pressureIdleMs` are closed.
 * A connection with a request under way is never closed here.
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
): { stats(): { open: number; evicted: number; refused: number } } {
  const open = new Map<Socket, Tracked>();
  const perAddress = new Map<string, Set<Socket>>();
  let evicted = 0;
  let refused = 0;
  let lastSweep = 0;

  const forget = (socket: Socket) => {
    const t = open.get(socket);
    if (!t) return;
    open.delete(socket);
    const mine = perAddress.get(t.address);
    mine?.delete(socket);
    if (mine?.size === 0) perAddress.delete(t.address);
  };
  const evict = (socket: Socket) => {
    forget(socket);
    evicted++;
    socket.destroy();
  };
  /** The connection idle the longest among `among`, if any is idle. */
  const longestIdle = (among: Iterable<Socket>): Socket | undefined => {
    let best: Socket | undefined;
    let since = Infinity;
    for (const s of among) {
      const t = open.get(s)!;
      if (t.busy === 0 && t.idleSince < since) {
        best = s;
        since = t.idleSince;
      }
    }
    return best;
  };
  const sweep = (now: number) => {
    // At most every 100 ms: a flood of connections does not scan the table on every one.
    if (now - lastSweep < 100) return;
    lastSweep = now;
    for (const [s, t] of open) if (t.busy === 0 && now - t.idleSince > limits.pressureIdleMs) evict(s);
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const now = Date.now();
    if (open.size >= limits.max * PRESSURE) sweep(now);
    const mine = perAddress.get(address);
    if (limits.perAddress > 0 && mine && mine.size >= limits.perAddress) {
      const victim = longestIdle(mine);
      if (!victim) {
        refused++;
        socket.destroy();
        return;
      }
      evict(victim);
    }
    if (open.size >= limits.max) {
      const victim = longestIdle(open.keys());
      if (!victim) {
        refused++;
        socket.destroy();
        return;
      }
      evict(victim);
    }
    open.set(socket, { address, busy: 0, idleSince: now });
    if (mine) mine.add(socket);
    else perAddress.set(address, new Set([socket]));
    socket.once('close', () => forget(socket));
  });

  server.on('request', (req, res) => {
    const t = open.get(req.socket);
    if (!t) return;
    t.busy++;
    res.once('close', () => {
      t.busy--;
      if (t.busy === 0) t.idleSince = Date.now();
    });
  });

  return { stats: () => ({ open: open.size, evicted, refused }) };
}
