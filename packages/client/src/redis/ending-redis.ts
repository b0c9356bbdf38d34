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
 */
/** The options of a client with ioredis's default (legacy) reply shapes, the only ones used here. */
export type LegacyRedisOptions = RedisOptions & { replyMapping?: 'legacy' };

export class EndingRedis extends Redis {
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
