// Moved to the producer package (packages/client), which the service shares; this path stays for its importers.
export * from '../../packages/client/src/queues/retry-backoff.ts';
