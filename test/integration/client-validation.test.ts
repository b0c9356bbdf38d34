import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandTimeout, FulfilmentClient, InvalidParams, NoWorkers, Unavailable } from '../../src/index.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The producer client when a command cannot go through: refused before it reaches Redis, no
// worker to answer in time, no Redis at all. The happy paths are in client.test.ts.

const SELLER = { brokerageId: 1 };

describe('FulfilmentClient refusals and failures', () => {
  let t: TestService;
  let redis: Redis;
  const extraPrefixes: string[] = [];

  beforeAll(async () => {
    t = await startTestService();
    const fixture = baseFixture([744, 745]);
    await t.seed(fixture);
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis?.disconnect();
    await t?.stop();
    for (const p of extraPrefixes) await dropPrefix(p);
  });

  const freshPrefix = () => {
    const p = testPrefix();
    extraPrefixes.push(p);
    return p;
  };
  async function keysUnder(prefix: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found;
  }

  it('refuses a bad payload or bad options with InvalidParams before anything reaches Redis', async () => {
    const prefix = freshPrefix();
    const refuser = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix });
    try {
      const refused = async (call: () => Promise<unknown>, field: string) => {
        const err = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, field).toBeInstanceOf(InvalidParams);
        expect((err as InvalidParams).field).toBe(field);
        return err as InvalidParams;
      };
      const flash = { order_id: ORDERS.flash, reviewer_id: 100 };
      const cases: Array<[() => Promise<unknown>, string]> = [
        [
          // The input types are the schemas' input side: an unknown transfer type does not compile
          // (tsc fails if this line stops being an error), and is refused at run time too.
          // @ts-expect-error: 'CarrierPigeon' is not a mobile_transfer_type
          () => refuser.updateShipment({ shipment_id: 5, mobile_transfer_type: 'CarrierPigeon' }, { ...SELLER, await: true }),
          'mobile_transfer_type',
        ],
        [() => refuser.acceptOrder({ order_id: ORDERS.flash } as any, { ...SELLER, await: true }), 'reviewer_id'],
        [() => refuser.acceptOrder({ ...flash, extra: 1 } as any, SELLER), 'extra'],
        [() => refuser.acceptOrder(flash, { ...SELLER, commandId: 'order:702' }), 'commandId'],
        [() => refuser.acceptOrder(flash, { ...SELLER, commandId: '12345' }), 'commandId'],
        [() => refuser.acceptOrder(flash, {} as any), 'brokerageId'],
        [() => refuser.acceptOrder(flash, { ...SELLER, await: true, timeoutMs: -1 }), 'timeoutMs'],
        [() => refuser.updateShipment({ shipment_id: 5, mobile_transfer_type: 'XMobile', ship_to_name: 'x' } as any, SELLER), 'body'],
        [() => refuser.updateShipment({ shipment_id: 0, mobile_transfer_type: 'XMobile' }, SELLER), 'shipment_id'],
        [() => refuser.completeShipment({ shipment_id: 5, x_mobile_link: 'ftp://nope' }, SELLER), 'x_mobile_link'],
        [
          () =>
            refuser.upsertInventory(
              {
                office_id: 10,
                records: [
                  { remote_id: 1, quantity: 1 },
                  { remote_id: 1, quantity: 2 },
                ],
              },
              SELLER,
            ),
          'records.1.remote_id',
        ],
        [() => refuser.send('shipment.explode' as any, {} as any, SELLER), 'name'],
      ];
      for (const [call, field] of cases) await refused(call, field);
      const missing = await refused(cases[1]![0], 'reviewer_id');
      expect(missing.message).toMatch(/^reviewer_id: /);
      // Nothing reached Redis under this prefix but the queues' own metadata, which BullMQ may
      // write when a queue connects: no job, no id counter, no event.
      expect((await keysUnder(prefix)).filter((k) => !k.endsWith(':meta'))).toEqual([]);
      const queues = ['commands', 'inventory'].map((name) => new Queue(name, { prefix, connection: redis }));
      try {
        for (const q of queues) {
          const counts = await q.getJobCounts();
          expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
        }
      } finally {
        await Promise.all(queues.map((q) => q.close()));
      }
    } finally {
      await refuser.close();
    }
  });

  it('gives up awaiting with CommandTimeout, the command still taken', async () => {
    const prefix = freshPrefix(); // no worker serves this prefix
    const lonely = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix });
    try {
      const err = await lonely
        .acceptOrder({ order_id: 744, reviewer_id: 100 }, { ...SELLER, await: true, timeoutMs: 300, commandId: 'up-timeout-744' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CommandTimeout);
      expect(err).toMatchObject({ commandId: 'up-timeout-744', timeoutMs: 300, code: 'command_timeout' });
      // And it says why: nothing consumes this prefix's queue (a wrong prefix looks exactly so).
      expect(err).toBeInstanceOf(NoWorkers);
      expect(err).toMatchObject({ name: 'NoWorkers', queue: 'commands', prefix });
      expect((err as Error).message).toMatch(new RegExp(`no worker consumes queue "commands" under prefix "${prefix}"`));
      const queue = new Queue('commands', { prefix, connection: redis });
      try {
        expect(await (await queue.getJob('up-timeout-744'))!.getState()).toBe('waiting');
      } finally {
        await queue.close();
      }
    } finally {
      await lonely.close();
    }
  });

  it('answers Unavailable when Redis cannot be reached, awaited or not', async () => {
    const nowhere = new FulfilmentClient({ redisUrl: 'redis://127.0.0.1:1', prefix: freshPrefix() });
    try {
      await expect(nowhere.acceptOrder({ order_id: 745, reviewer_id: 100 }, { ...SELLER, await: true })).rejects.toBeInstanceOf(
        Unavailable,
      );
      await expect(nowhere.acceptOrder({ order_id: 745, reviewer_id: 100 }, SELLER)).rejects.toBeInstanceOf(Unavailable);
    } finally {
      await nowhere.close();
    }
  });
});
