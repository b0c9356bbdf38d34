// Lives in the producer package (packages/client), which routes the same way; this path is the service's.
export * from '../../packages/client/src/queues/shard-of.ts';
