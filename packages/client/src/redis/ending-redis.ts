import { Redis, type RedisOptions } from 'ioredis';
import { closeHandler } from 'ioredis/built/redis/event_handler.js';

/**
 * A Redis client whose disconnect() always ends it, even between two reconnect attempts.
 *
 * ioredis ends a client (status `end`, the `end` event, queued commands rejected) only from its
 * socket's close event. While it waits to reconnect after losing Redis there is no socket left to
 * close, so disconnect() merely cancels the retry: the client stays `reconnecting` for good, no
 * `end` ever comes and the commands queued on it never settle (ioredis issue #1247). BullMQ's
 * Worker.close() disconnects its blocking connection and waits for exactly that `end`, so a worker
 * stopped while Redis was away, or before one of its connections came back after a restart, never
 * closed: a forced close could not help either (BullMQ hands back the pending close), and shutdown
 * ran into every step's deadline. Here the client is ended the way ioredis ends one that never
 * connected, through its own close handler, so the `end` comes and queued commands are rejected.
 *
 * duplicate() makes another of these: BullMQ duplicates the connection it is given for its blocking one.
 *
 * It also sends the commands of one event-loop turn in one write (sendCommand below). A Redis
 * Cluster's node connections are ioredis's own and get neither.
 */
/** The options of a client with ioredis's default (legacy) reply shapes, the only ones used here. */
export type LegacyRedisOptions = RedisOptions & { replyMapping?: 'legacy' };

export class EndingRedis extends Redis {
  private corked: unknown = null;

  // Commands sent in one turn of the event loop leave in one write: the socket is corked at the
  // first and uncorked once the turn's I/O callbacks ran (setImmediate), as postgres.js does. A
  // worker finishing several jobs, or an API enqueueing several requests' jobs, in one turn makes
  // one system call and wakes Redis once (docs/BENCHMARKS.md: Redis CPU per command about 20 %
  // lower). Order is kept: it is one socket's byte stream, only sent later in the same turn.
  override sendCommand(...args: Parameters<Redis['sendCommand']>): ReturnType<Redis['sendCommand']> {
    const socket = this.stream as (typeof this.stream & { cork?: () => void; uncork?: () => void }) | undefined;
    if (socket && this.corked !== socket && typeof socket.cork === 'function') {
      this.corked = socket;
      socket.cork();
      setImmediate(() => {
        this.corked = null;
        socket.uncork!();
      });
    }
    return super.sendCommand(...args);
  }

  override disconnect(reconnect = false): void {
    const betweenAttempts = !reconnect && this.status === 'reconnecting';
    super.disconnect(reconnect);
    if (betweenAttempts && this.status === 'reconnecting') closeHandler(this)();
  }

  override duplicate<O extends Partial<RedisOptions> | undefined = undefined>(override?: O): ReturnType<Redis['duplicate']> {
    // Typed as ioredis types a duplicate (its reply mapping follows the options); the same class at run time.
    return new EndingRedis({ ...this.options, ...override } as LegacyRedisOptions) as ReturnType<Redis['duplicate']>;
  }
}
