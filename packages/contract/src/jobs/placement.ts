/**
 * Where every queue and per-deployment key of fulfil lives: one place that names them, for the
 * service, the CLI and the producer package alike (docs/SCALING.md, "Which key lives where").
 *
 * A Redis Cluster keeps a BullMQ queue's keys together only if they share a hash tag, and places
 * a tag on one master: so on a cluster (a prefix that carries a `{tag}`) each queue gets a tag of
 * its own, derived from the prefix. On a single Redis (a prefix without a tag) the other queues
 * keep the plain prefix, so their keys are where earlier versions had them.
 */
import { COMMAND_QUEUE, INVENTORY_QUEUE, WEBHOOKS_QUEUE } from './job-map.ts';

export const HOUSEKEEPING_QUEUE = 'fulfil-housekeeping';
/** The deadline timers of open orders: one delayed job per order and kind (the service's src/timers/). */
export const TIMERS_QUEUE = 'fulfil-timers';

/** A BullMQ queue's address: its prefix (which carries the hash tag on a cluster) and name. */
export interface QueuePlace {
  prefix: string;
  name: string;
}

const TAG = /\{([^{}]+)\}/;
const SLOTS = 16384;

/** The prefix with its hash tag replaced by `{tag + suffix}`; a prefix without a tag is returned as it is. */
function ownTag(prefix: string, suffix: string): string {
  return prefix.replace(TAG, (_m, inner: string) => `{${inner}${suffix}}`);
}

export function inventoryPlace(prefix: string): QueuePlace {
  return { prefix: ownTag(prefix, '.inventory'), name: INVENTORY_QUEUE };
}

/**
 * The Redis Stream of shipment events (`<prefix>:events`, on a cluster `{<tag>.events}:events`),
 * when the service publishes one (EVENTS_STREAM=on). One key, on a tag of its own, so a cluster
 * places it by that tag apart from the command shards, where the earlier events queue was.
 */
export function eventsStreamKey(prefix: string): string {
  return `${ownTag(prefix, '.events')}:events`;
}

export function housekeepingPlace(prefix: string): QueuePlace {
  return { prefix: ownTag(prefix, '.housekeeping'), name: HOUSEKEEPING_QUEUE };
}

/** The deadline timers: a tag of their own, since a sweep arms many at once. */
export function timersPlace(prefix: string): QueuePlace {
  return { prefix: ownTag(prefix, '.timers'), name: TIMERS_QUEUE };
}

/** Outgoing webhook queues (`fulfil-webhooks`, …): a tag of their own, apart from commands and events. */
export function webhooksPlace(prefix: string, name: string): QueuePlace {
  return { prefix: ownTag(prefix, '.webhooks'), name };
}

/**
 * Shard `shard` of `shards` command queues. One shard is the command queue as it always was
 * (`<prefix>:commands`). With more, shard i gets the tag `<tag>.c<N>-<i>`, or `<tag>.c<N>-<i>.<k>`
 * for the first k that puts the tag's slot in the i-th N-th of the slot range: a cluster whose
 * masters hold equal ranges (what `redis-cli --cluster create` makes) then holds N/masters shards
 * each. On a single Redis the prefix becomes `<prefix>.c<N>-<i>`.
 */
export function commandShardPlace(prefix: string, shard: number, shards: number): QueuePlace {
  if (shards <= 1) return { prefix, name: COMMAND_QUEUE };
  const key = `${prefix}\n${shard}\n${shards}`;
  let placed = shardPrefixes.get(key);
  if (placed === undefined) {
    placed = spreadTag(prefix, shard, shards);
    shardPrefixes.set(key, placed);
  }
  return { prefix: placed, name: COMMAND_QUEUE };
}

const shardPrefixes = new Map<string, string>();

function spreadTag(prefix: string, shard: number, shards: number): string {
  const inner = TAG.exec(prefix)?.[1];
  const base = `.c${shards}-${shard}`;
  if (inner === undefined) return `${prefix}${base}`;
  const low = Math.floor((shard * SLOTS) / shards);
  const high = Math.floor(((shard + 1) * SLOTS) / shards);
  for (let k = 0; ; k++) {
    const suffix = k === 0 ? base : `${base}.${k}`;
    const slot = keySlot(`${inner}${suffix}`);
    if (slot >= low && slot < high) return ownTag(prefix, suffix);
  }
}

/** Every command shard queue of a layout of `shards` queues. */
export function commandShardPlaces(prefix: string, shards: number): QueuePlace[] {
  return Array.from({ length: shards }, (_, i) => commandShardPlace(prefix, i, shards));
}

/**
 * The well-known key holding the shard counts whose queues the deployment's workers consume
 * (a hash: count → when a worker last announced it). Producers check their count against it.
 */
export function shardCountsKey(prefix: string): string {
  return `${prefix}:command-shards`;
}

/** The slot Redis Cluster gives a key or tag: CRC16 (XMODEM) of it, modulo 16384. */
export function keySlot(tag: string): number {
  let crc = 0;
  for (const byte of Buffer.from(tag, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % SLOTS;
}

/** The queues operators look at (/metrics, /ops/queues, `fulfil jobs`): command shards, inventory, webhook deliveries. */
export function serviceQueuePlaces(prefix: string, shards: number): QueuePlace[] {
  return [...commandShardPlaces(prefix, shards), inventoryPlace(prefix), webhooksPlace(prefix, WEBHOOKS_QUEUE)];
}

/**
 * A rate-limit counter (`ratelimit`, `authfail`): no hash tag, so on a cluster each counter hashes
 * on its own name and the counters spread over the masters; each is one key, counted in a MULTI
 * of its own. The id is URI-encoded so a `{` in it cannot make a tag.
 */
export function counterKey(prefix: string, kind: string, id: string, window: number): string {
  return `${prefix.replace(TAG, '$1')}:${kind}:${encodeURIComponent(id)}:${window}`;
}

/**
 * The pub/sub channel on which one API process hears its commands' answers (the service's
 * src/queues/reply-channel.ts); `process` tells the processes apart. No tag: a plain PUBLISH
 * reaches a subscriber on any master of a cluster, so the channel's slot does not matter.
 */
export function replyChannel(prefix: string, process: string): string {
  return `${prefix.replace(TAG, '$1')}:replies:${process}`;
}
