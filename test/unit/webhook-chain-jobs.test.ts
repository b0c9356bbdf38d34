import { describe, expect, it } from 'vitest';
import { chainJobs, MAX_CHAINS_PER_JOB } from '../../src/webhooks/webhook-queue.ts';

/** The jobs the relay queues for freshly written deliveries (webhook-job-chains.test.ts runs such jobs). */
describe('webhook chain jobs', () => {
  it('groups fresh chains by endpoint, at most MAX_CHAINS_PER_JOB orders a job, a ping alone', () => {
    const rows = [
      ...Array.from({ length: MAX_CHAINS_PER_JOB + 2 }, (_, i) => ({ endpointId: 1, orderId: 100 + i, deliveryId: 10 + i, attempts: 0 })),
      { endpointId: 1, orderId: 100, deliveryId: 99, attempts: 0 }, // seq 2 of order 100: the same chain
      { endpointId: 2, orderId: 100, deliveryId: 50, attempts: 0 },
      { endpointId: 2, orderId: null, deliveryId: 51, attempts: 0 },
    ];
    const jobs = chainJobs(rows);
    expect(jobs.map((j) => [j.endpointId, j.orderId, j.deliveryId, j.more ?? []])).toEqual([
      [1, 100, 10, Array.from({ length: MAX_CHAINS_PER_JOB - 1 }, (_, i) => 101 + i)],
      [1, 100 + MAX_CHAINS_PER_JOB, 10 + MAX_CHAINS_PER_JOB, [101 + MAX_CHAINS_PER_JOB]],
      [2, 100, 50, []],
      [2, null, 51, []],
    ]);
  });
});
