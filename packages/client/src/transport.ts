/**
 * The Redis and BullMQ plumbing the producer shares with the service's own ingress (which is a
 * producer too): connections, the command queues, result waiters and the shard-count guard.
 * `@fulfil/client/transport` is for the service; an upstream system uses the package's main entry.
 */
export * from './redis/connections.ts';
export * from './redis/ending-redis.ts';
export * from './redis/redis-url.ts';
export * from './queues/command-queues.ts';
export * from './queues/waiters.ts';
export * from './queues/waiting-room.ts';
export * from './queues/shard-guard.ts';
export * from './client/redis-ready.ts';
