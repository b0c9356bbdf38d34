import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { RedisConnection } from '@fulfil/client/transport';
import pino from 'pino';
import type { Database } from '../../src/db/client.ts';
import { DEFAULT_DEADLINE_POLICY } from '../../src/domain/deadline-policy.ts';
import type { JobName } from '@fulfil/contract';
import { CommandWaiters } from '@fulfil/client/transport';
import { registry } from '../../workers/index.ts';
import { runCommand } from '../../workers/runner.ts';
import { isPickupOrder, PICKUP_BUYER, PICKUP_SELLER, SELLER_BROKERAGE, type FlowAnswer } from './flows.ts';
import type { Recorder } from './load.ts';

const silent = { log: pino({ level: 'silent' }), deadlines: DEFAULT_DEADLINE_POLICY };
const handlers = registry();

/**
 * The limit under the service's Postgres work: the workers' transaction alone (claim, lock,
 * read, write, store: the same prepared statements on postgres.js), called directly at the same
 * concurrency, with no HTTP, no API-side row and no queue hop.
 */
export async function transactionFlow(database: Database, rec: Recorder, orderId: number): Promise<void> {
  const run = async (name: JobName, payload: object, brokerageId = SELLER_BROKERAGE) => {
    const handler = handlers.get(name)!;
    const result = await rec.time(() =>
      runCommand(
        database,
        handler,
        { commandId: `b-${randomUUID()}`, actor: { brokerageId, userId: null, via: 'api' }, requestHash: 'bench', payload },
        silent,
      ),
    );
    if (result.status !== 200) throw new Error(`${name}: ${result.status} ${JSON.stringify(result.body).slice(0, 200)}`);
    return result.body as FlowAnswer;
  };
  const accepted = await run('order.accept', { order_id: orderId, reviewer_id: 100 });
  const first = accepted.shipments[0]!.id;
  if (isPickupOrder(orderId)) {
    const seller = await run('shipment.update', { shipment_id: first, operation: 'seller_pickup', ...PICKUP_SELLER });
    await run('shipment.update', { shipment_id: seller.id, operation: 'buyer_pickup', ...PICKUP_BUYER }, 2);
  } else {
    const updated = await run('shipment.update', { shipment_id: first, operation: 'mobile_transfer', mobile_transfer_type: 'XMobileLink' });
    await run('shipment.complete', { shipment_id: updated.id, x_mobile_link: 'https://claim.example.test/x' });
  }
}

/**
 * The limit under the service's queue hop: BullMQ add, a worker that does nothing, and the
 * `completed` event back to a waiter, as the API waits for a command.
 */
export async function startNoopQueue(opts: { prefix: string; connection: () => RedisConnection; concurrency: number }) {
  const name = 'bench-noop';
  const queue = new Queue(name, { prefix: opts.prefix, connection: opts.connection() });
  const worker = new Worker(name, async () => ({ status: 200, body: { ok: true } }), {
    prefix: opts.prefix,
    connection: opts.connection(),
    concurrency: opts.concurrency,
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 1000 },
  });
  const waiters = new CommandWaiters([{ name, prefix: opts.prefix }], { connection: opts.connection });
  await Promise.all([worker.waitUntilReady(), waiters.ready()]);
  return {
    async roundTrip(rec: Recorder): Promise<void> {
      await rec.time(async () => {
        const id = `n-${randomUUID()}`;
        const wait = waiters.wait(id, 10_000);
        await queue.add('noop', { id }, { jobId: id, removeOnComplete: { count: 1000 } });
        const woke = await wait.done;
        if (!woke || woke.event !== 'completed') throw new Error('no-op job did not complete in 10 s');
      });
    },
    async close() {
      await waiters.close();
      await worker.close();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    },
  };
}
