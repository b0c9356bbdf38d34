import type { Redis } from 'ioredis';
import { sampleEvery } from './sampler.ts';

/**
 * What Redis shows during a timed phase of the scale bench: its commands (INFO commandstats; a
 * BullMQ Lua script's own calls are counted both under EVALSHA and under each command it runs),
 * its CPU (INFO cpu: the whole server and its main thread, the one that serialises commands),
 * and how deep the BullMQ queues are (sampled).
 */
export interface RedisInfo {
  commands: Map<string, { calls: number; usec: number }>;
  cpuSeconds: number;
  mainThreadCpuSeconds?: number;
}

function fields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) out.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}

export async function redisInfo(redis: Redis): Promise<RedisInfo> {
  const stats = fields(await redis.info('commandstats'));
  const cpu = fields(await redis.info('cpu'));
  const commands = new Map<string, { calls: number; usec: number }>();
  for (const [key, value] of stats) {
    if (!key.startsWith('cmdstat_')) continue;
    const v = Object.fromEntries(value.split(',').map((kv) => kv.split('=') as [string, string]));
    commands.set(key.slice('cmdstat_'.length), { calls: Number(v.calls ?? 0), usec: Number(v.usec ?? 0) });
  }
  const n = (k: string) => Number(cpu.get(k) ?? NaN);
  const main = n('used_cpu_sys_main_thread') + n('used_cpu_user_main_thread');
  return { commands, cpuSeconds: n('used_cpu_sys') + n('used_cpu_user'), ...(Number.isFinite(main) ? { mainThreadCpuSeconds: main } : {}) };
}

export interface CommandUse {
  command: string;
  calls: number;
  usec: number;
}

export function commandDelta(a: RedisInfo, b: RedisInfo): CommandUse[] {
  return [...b.commands]
    .map(([command, s]) => ({
      command,
      calls: s.calls - (a.commands.get(command)?.calls ?? 0),
      usec: s.usec - (a.commands.get(command)?.usec ?? 0),
    }))
    .filter((c) => c.calls > 0)
    .sort((x, y) => y.usec - x.usec);
}

const QUEUE_KEY = /^(.*):(meta|id|events|wait|active|completed|marker)$/;

/** The BullMQ queues (`prefix:name`) under a QUEUE_PREFIX, from the keys every used queue has (a shard's prefix extends it with `.`). */
export async function queueBases(redis: Redis, prefix: string): Promise<string[]> {
  const bases = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const m = QUEUE_KEY.exec(key);
      if (m && (m[1]!.startsWith(`${prefix}:`) || m[1]!.startsWith(`${prefix}.`))) bases.add(m[1]!);
    }
  } while (cursor !== '0');
  return [...bases].sort();
}

export interface QueueDepth {
  queue: string;
  waitingMean: number;
  waitingMax: number;
  activeMean: number;
  activeMax: number;
  delayedMax: number;
}

/** Waiting (wait + prioritized), active and delayed jobs of each queue, every `ms` until stopped. */
export function sampleQueues(redis: Redis, bases: string[], ms = 100): { stop(): Promise<QueueDepth[]> } {
  const sums = bases.map(() => ({ waiting: 0, waitingMax: 0, active: 0, activeMax: 0, delayedMax: 0 }));
  let samples = 0;
  const sampler = sampleEvery(ms, async () => {
    const pipeline = redis.pipeline();
    for (const base of bases) pipeline.llen(`${base}:wait`).zcard(`${base}:prioritized`).llen(`${base}:active`).zcard(`${base}:delayed`);
    const replies = ((await pipeline.exec()) ?? []).map(([err, n]) => (err ? 0 : Number(n)));
    bases.forEach((_, i) => {
      const [wait = 0, prioritized = 0, active = 0, delayed = 0] = replies.slice(i * 4, i * 4 + 4);
      const s = sums[i]!;
      s.waiting += wait + prioritized;
      s.waitingMax = Math.max(s.waitingMax, wait + prioritized);
      s.active += active;
      s.activeMax = Math.max(s.activeMax, active);
      s.delayedMax = Math.max(s.delayedMax, delayed);
    });
    samples++;
  });
  return {
    async stop() {
      await sampler.stop();
      return bases.map((queue, i) => {
        const s = sums[i]!;
        return {
          queue,
          waitingMean: s.waiting / Math.max(1, samples),
          waitingMax: s.waitingMax,
          activeMean: s.active / Math.max(1, samples),
          activeMax: s.activeMax,
          delayedMax: s.delayedMax,
        };
      });
    },
  };
}
