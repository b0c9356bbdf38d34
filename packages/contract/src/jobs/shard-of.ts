import type { JobMap, JobName } from './job-map.ts';

/**
 * Which command shard a command belongs to, computed from its payload alone (no Postgres read).
 *
 * Orders are routed by their id. A shipment id carries its order's residue modulo ROUTING_RESIDUES
 * (the workers draw it as `nextval * ROUTING_RESIDUES + order_id % ROUTING_RESIDUES`,
 * src/db/sql/shipment-id.ts), so a shipment command lands on the shard of its order without a
 * lookup. Only the residue is hashed, so any N up to a few dozen spreads evenly.
 */
export const ROUTING_RESIDUES = 1024;

/** The shard of an order (or of a shipment of it) among `shards`. */
export function shardOfId(id: number, shards: number): number {
  if (shards <= 1) return 0;
  const residue = ((id % ROUTING_RESIDUES) + ROUTING_RESIDUES) % ROUTING_RESIDUES;
  // Fibonacci hashing (the high bits of a multiplicative hash), so ids sharing a stride (all
  // even, say) still spread over the shards.
  return Math.floor(((Math.imul(residue + 1, 0x9e3779b1) >>> 0) / 2 ** 32) * shards);
}

/** The id a sharded command is routed by: its order's, or its shipment's (which carries the order's residue). */
export function routingIdOf<N extends JobName>(name: N, payload: JobMap[N]): number | undefined {
  const p = payload as { order_id?: unknown; shipment_id?: unknown };
  const id = name === 'order.accept' ? p.order_id : name.startsWith('shipment.') ? p.shipment_id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}

/** The shard a command goes to; commands without an order (none today) go to shard 0. */
export function shardOfCommand<N extends JobName>(name: N, payload: JobMap[N], shards: number): number {
  const id = routingIdOf(name, payload);
  return id === undefined ? 0 : shardOfId(id, shards);
}

/**
 * COMMAND_SHARDS when not set: one queue on a single Redis (nothing to spread over), three on a
 * cluster (the smallest cluster has three masters; placement.ts puts one shard on each).
 */
export function defaultCommandShards(onCluster: boolean): number {
  return onCluster ? 3 : 1;
}

export const MAX_COMMAND_SHARDS = 64;
