import { Redis } from 'ioredis';
import postgres from 'postgres';
import {
  sampleActivity,
  sampleOutbox,
  statementDelta,
  statementSnapshot,
  walSnapshot,
  type ActivityProfile,
  type OutboxProfile,
  type StatementStats,
  type WalSnapshot,
} from './scale-profile-pg.ts';
import { commandDelta, queueBases, redisInfo, sampleQueues, type CommandUse, type QueueDepth } from './scale-profile-redis.ts';
import { scrape, serviceStats, type ServiceProcessStats } from './scale-profile-procs.ts';

/**
 * Samplers around the scale bench's timed phase, to find what serialises the command path:
 * Postgres's backend states and waits, statement times and WAL, the outbox relay's lag and
 * batches, Redis's commands and main thread, BullMQ queue depths, and the event-loop delay and
 * request/command durations each service process reports on /metrics. Started just before the
 * timed flows and stopped just after; the sampling costs show as the bench's own CPU.
 */
export interface ProfileTargets {
  /** Any database of the server (the samplers' connection); `database` is the bench's. */
  adminUrl: string;
  databaseUrl: string;
  database: string;
  redisUrl: string;
  /** The service's QUEUE_PREFIX: only its queues are sampled. */
  queuePrefix: string;
  apiMetricsUrls: string[];
  workerMetricsUrls: string[];
}

export interface Profile {
  activity: ActivityProfile;
  statements?: StatementStats[];
  wal?: { before: WalSnapshot; after: WalSnapshot };
  outbox: OutboxProfile;
  redis: { cpuSeconds: number; mainThreadCpuSeconds?: number; commands: CommandUse[] };
  queues: QueueDepth[];
  apis: ServiceProcessStats[];
  workers: ServiceProcessStats[];
}

export const ACTIVITY_SAMPLE_MS = 50;
export const QUEUE_SAMPLE_MS = 100;
export const OUTBOX_SAMPLE_MS = 250;

const isCommandRoute = (labels: string) => labels.includes('/v9/');

export async function startProfile(t: ProfileTargets): Promise<{ stop(): Promise<Profile> }> {
  const admin = postgres(t.adminUrl, { max: 2, onnotice: () => {} });
  const bench = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
  const redis = new Redis(t.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  const close = async () => {
    await Promise.allSettled([admin.end(), bench.end()]);
    redis.disconnect();
  };
  try {
    await redis.connect();
    // A first scrape resets each process's event-loop histogram: the last one covers the timed phase.
    const scrapeAll = () => Promise.all([...t.apiMetricsUrls, ...t.workerMetricsUrls].map(scrape));
    const scrapesBefore = await scrapeAll();
    const [statementsBefore, walBefore, redisBefore, bases] = await Promise.all([
      statementSnapshot(admin, t.database),
      walSnapshot(admin, t.database),
      redisInfo(redis),
      queueBases(redis, t.queuePrefix),
    ]);
    const activity = sampleActivity(admin, t.database, ACTIVITY_SAMPLE_MS);
    const outbox = sampleOutbox(bench, OUTBOX_SAMPLE_MS);
    const queues = sampleQueues(redis, bases, QUEUE_SAMPLE_MS);
    const stop = async (): Promise<Profile> => {
      try {
        const [activityProfile, outboxProfile, queueDepths] = await Promise.all([activity.stop(), outbox.stop(), queues.stop()]);
        const scrapesAfter = await scrapeAll();
        const [statementsAfter, walAfter, redisAfter] = await Promise.all([
          statementSnapshot(admin, t.database),
          walSnapshot(admin, t.database),
          redisInfo(redis),
        ]);
        const apiCount = t.apiMetricsUrls.length;
        const stats = (i: number) =>
          i < apiCount
            ? serviceStats(scrapesBefore[i], scrapesAfter[i], 'fulfil_http_request_duration_seconds', isCommandRoute)
            : serviceStats(scrapesBefore[i], scrapesAfter[i], 'fulfil_command_duration_seconds');
        const all = scrapesAfter.map((_, i) => stats(i));
        return {
          activity: activityProfile,
          ...(statementsBefore && statementsAfter ? { statements: statementDelta(statementsBefore, statementsAfter) } : {}),
          ...(walBefore && walAfter ? { wal: { before: walBefore, after: walAfter } } : {}),
          outbox: outboxProfile,
          redis: {
            cpuSeconds: redisAfter.cpuSeconds - redisBefore.cpuSeconds,
            ...(redisAfter.mainThreadCpuSeconds !== undefined && redisBefore.mainThreadCpuSeconds !== undefined
              ? { mainThreadCpuSeconds: redisAfter.mainThreadCpuSeconds - redisBefore.mainThreadCpuSeconds }
              : {}),
            commands: commandDelta(redisBefore, redisAfter),
          },
          queues: queueDepths,
          apis: all.slice(0, apiCount),
          workers: all.slice(apiCount),
        };
      } finally {
        await close();
      }
    };
    return { stop };
  } catch (err) {
    await close();
    throw err;
  }
}
