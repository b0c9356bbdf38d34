import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  commandShardPlace,
  counterKey,
  eventsStreamKey,
  housekeepingPlace,
  inventoryPlace,
  keySlot,
  shardCountsKey,
  webhooksPlace,
  ROUTING_RESIDUES,
  shardOfCommand,
  shardOfId,
} from '@fulfil/contract';

describe('shard of an order', () => {
  it('spreads consecutive order ids evenly, and a shipment id follows its order', () => {
    for (const shards of [2, 3, 6]) {
      const counts = new Array<number>(shards).fill(0);
      for (let id = 1; id <= 6000; id++) counts[shardOfId(id, shards)]!++;
      for (const n of counts) expect(n / 6000).toBeGreaterThan(0.8 / shards);
      // Ids sharing a stride spread too.
      const even = new Set(Array.from({ length: 100 }, (_, i) => shardOfId(i * 2 * shards, shards)));
      expect(even.size).toBe(shards);
    }
    // A shipment id as the workers draw it: sequence value × residues + the order's residue.
    for (const order of [1, 700, 1023, 1024, 987_654_321]) {
      const shipment = 4711 * ROUTING_RESIDUES + (order % ROUTING_RESIDUES);
      for (const shards of [1, 3, 6, 7]) expect(shardOfId(shipment, shards)).toBe(shardOfId(order, shards));
    }
    expect(shardOfCommand('order.accept', { order_id: 42, reviewer_id: 1 } as never, 3)).toBe(shardOfId(42, 3));
    expect(shardOfCommand('shipment.complete', { shipment_id: 42 } as never, 3)).toBe(shardOfId(42, 3));
    expect(shardOfId(42, 1)).toBe(0);
  });
});

describe('queue placement', () => {
  it('computes the slot Redis Cluster does (CRC16 XMODEM mod 16384)', () => {
    // Values of CLUSTER KEYSLOT on a real Redis.
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('bar')).toBe(5061);
    expect(keySlot('123456789')).toBe(12739);
  });

  it('keeps a single Redis where earlier versions had it with one shard', () => {
    expect(commandShardPlace('fulfil', 0, 1)).toEqual({ prefix: 'fulfil', name: 'commands' });
    expect(inventoryPlace('fulfil')).toEqual({ prefix: 'fulfil', name: 'inventory' });
    expect(eventsStreamKey('fulfil')).toBe('fulfil:events');
    expect(commandShardPlace('fulfil', 2, 3)).toEqual({ prefix: 'fulfil.c3-2', name: 'commands' });
    expect(counterKey('fulfil', 'ratelimit', 'tok{x}', 7)).toBe('fulfil:ratelimit:tok%7Bx%7D:7');
    expect(shardCountsKey('fulfil')).toBe('fulfil:command-shards');
  });

  it('gives every queue its own tag on a cluster, shard i of N in the i-th N-th of the slots', () => {
    expect(commandShardPlace('{fulfil}', 0, 1).prefix).toBe('{fulfil}');
    expect(eventsStreamKey('{fulfil}')).toBe('{fulfil.events}:events');
    expect(inventoryPlace('{fulfil}').prefix).toBe('{fulfil.inventory}');
    expect(housekeepingPlace('{fulfil}').prefix).toBe('{fulfil.housekeeping}');
    expect(webhooksPlace('{fulfil}', 'fulfil-webhooks')).toEqual({ prefix: '{fulfil.webhooks}', name: 'fulfil-webhooks' });
    expect(counterKey('{fulfil}', 'ratelimit', 'tok', 7)).toBe('fulfil:ratelimit:tok:7');
    for (const shards of [2, 3, 6, 12]) {
      for (let i = 0; i < shards; i++) {
        const tag = /\{([^{}]+)\}/.exec(commandShardPlace('{fulfil}', i, shards).prefix)![1]!;
        expect(tag.startsWith(`fulfil.c${shards}-${i}`)).toBe(true);
        expect(keySlot(tag)).toBeGreaterThanOrEqual(Math.floor((i * 16384) / shards));
        expect(keySlot(tag)).toBeLessThan(Math.floor(((i + 1) * 16384) / shards));
      }
    }
  });
});

describe('COMMAND_SHARDS and WORKER_SHARDS', () => {
  it('defaults to 1 on a single Redis and 3 on a cluster', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).COMMAND_SHARDS).toBe(1);
    expect(loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1:7000' }).COMMAND_SHARDS).toBe(3);
    expect(loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1:7000', COMMAND_SHARDS: '6', WORKER_SHARDS: '0, 5' })).toMatchObject({
      COMMAND_SHARDS: 6,
      WORKER_SHARDS: [0, 5],
    });
  });

  it('refuses a shard a worker cannot have, and counts out of range', () => {
    expect(() => loadConfig({ COMMAND_SHARDS: '3', WORKER_SHARDS: '3' })).toThrow(
      /WORKER_SHARDS: shard 3 does not exist with COMMAND_SHARDS=3/,
    );
    expect(() => loadConfig({ WORKER_SHARDS: 'a,b' })).toThrow(/WORKER_SHARDS/);
    expect(() => loadConfig({ COMMAND_SHARDS: '0' })).toThrow(/COMMAND_SHARDS/);
    expect(() => loadConfig({ COMMAND_SHARDS: '65' })).toThrow(/COMMAND_SHARDS/);
  });
});
