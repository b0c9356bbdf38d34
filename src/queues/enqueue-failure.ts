import { ShardCountMismatch } from '@fulfil/client/transport';

/**
 * Whether an enqueue failed before Redis could have received the job: ioredis refuses to send
 * a command while its connection is not ready (producers run without an offline queue), and a
 * shard count the workers do not consume is refused before the add. Every
 * other failure (a reset, a timeout, retries given up with the command in flight) may come
 * after Redis stored the job and only its reply was lost.
 */
export function jobNeverSent(err: unknown): boolean {
  if (err instanceof ShardCountMismatch) return true;
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (/isn't (writeable|ready) and enableOfflineQueue options is false/.test(e.message)) return true;
  }
  return false;
}
