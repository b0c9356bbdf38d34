import type { Worker } from 'bullmq';
import type { RedisConnection } from '@fulfil/client/transport';

/** Wraps a BullMQ processor to count the jobs it is running, which a worker's close needs to know. */
export function countRunning<A extends unknown[], R>(processor: (...args: A) => Promise<R>) {
  let running = 0;
  return {
    processor: async (...args: A): Promise<R> => {
      running++;
      try {
        return await processor(...args);
      } finally {
        running--;
      }
    },
    running: () => running,
  };
}

/** How a worker's close ended: on its own, because Redis was away with no job left to wait for, or at its deadline. */
export type WorkerClose = 'closed' | 'redis away' | 'deadline';

/**
 * Closes a BullMQ worker: it stops taking jobs and its running ones finish, up to `deadlineMs`.
 *
 * The worker's connection retries commands until Redis answers (maxRetriesPerRequest null), and
 * Worker.close() waits for its fetch loop, which may sit on such a command. While Redis is away
 * that wait has no end, and a second close(true) cannot cut it short (BullMQ hands back the close
 * already under way). So the close is cut short by ending the connection, which rejects every
 * command queued on it: at once when Redis is away and no job is running (nothing could be handed
 * back to Redis anyway), else at the deadline. A job cut short is redelivered once its lock expires.
 */
export async function closeWorker(
  worker: Worker,
  connection: RedisConnection,
  opts: { deadlineMs: number; running: () => number },
): Promise<WorkerClose> {
  const closed = worker.close().then(
    () => 'closed' as const,
    () => 'closed' as const,
  );
  let timer: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  const cut = new Promise<WorkerClose>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), opts.deadlineMs);
    const check = () => {
      if (connection.status !== 'ready' && opts.running() === 0) resolve('redis away');
    };
    poll = setInterval(check, 100);
    check();
  });
  const outcome = await Promise.race([closed, cut]);
  clearTimeout(timer);
  clearInterval(poll);
  if (outcome !== 'closed') {
    connection.disconnect();
    await closed;
  }
  return outcome;
}
