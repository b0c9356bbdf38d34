import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_LEADER_KEY } from '../../src/events/relay-leadership.ts';
import { HOUSEKEEPING_QUEUE, RECOVER_LOST } from '../../workers/housekeeping.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { streamMessages } from '../support/events-stream.ts';
import { outboxWaiting, writeOutboxEvents, type OutboxEvent } from '../support/outbox-events.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';

async function until(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('several worker processes', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  });
  afterAll(() => redis?.disconnect());

  it('relay from one process at a time; SIGKILL of the active one hands over, nothing lost or reordered', async () => {
    const db: TestDatabase = await createTestDatabase();
    const prefix = testPrefix();
    const ORDER_COUNT = 20;
    const PER_ORDER = 150;
    const children: ChildProcess[] = [];
    try {
      const rows: OutboxEvent[] = [];
      for (let seq = 1; seq <= PER_ORDER; seq++) {
        for (let order = 1; order <= ORDER_COUNT; order++) rows.push({ orderId: order, seq });
      }
      const sql = db.database.sql!;
      const relayed = async () => rows.length - (await outboxWaiting(sql));
      // Which OS process holds the relay lock in this database (other test files' relays hold the
      // same key in theirs), read from the lock connection's application_name.
      const holders = async () =>
        (
          await sql`
            select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
            where l.locktype = 'advisory' and l.granted and l.objsubid = 1
              and l.database = (select oid from pg_database where datname = current_database())
              and l.classid = ${Math.floor(RELAY_LEADER_KEY / 2 ** 32)}::int8::oid and l.objid = ${RELAY_LEADER_KEY % 2 ** 32}::int8::oid`
        ).map((r) => Number(String(r.name).split(' ').pop()));
      const standbys = async () =>
        (
          await sql`select application_name as name from pg_stat_activity where datname = ${db.name} and application_name like 'fulfil relay %'`
        ).map((r) => Number(String(r.name).split(' ').pop()));

      const start = () => {
        const child = spawn(process.execPath, ['bin/fulfil.mjs', 'start', '--role', 'worker'], {
          env: {
            PATH: process.env.PATH,
            DATABASE_URL: db.url,
            REDIS_URL: TEST_REDIS_URL,
            QUEUE_PREFIX: prefix,
            LOG_LEVEL: 'silent',
            RELAY_BATCH_SIZE: '5',
            RELAY_INTERVAL_MS: '10',
            RELAY_LEADER_CHECK_MS: '200',
            EVENTS_STREAM: 'on',
            FULFIL_SECRET_KEY: 'ab'.repeat(32),
            DATA_DIR: `/tmp/fulfil-takeover-${prefix}`,
          },
          stdio: 'ignore',
        });
        children.push(child);
        return child;
      };
      const a = start();
      const b = start();
      const pids = [a.pid!, b.pid!];
      // Both up and standing by or relaying before the outbox fills, so both race for the lock.
      await until('both relays to connect', async () => (await standbys()).sort().join() === [...pids].sort().join(), 60_000);
      await writeOutboxEvents(sql, rows);
      await until('the relay to start publishing', async () => (await relayed()) > 0, 60_000);

      const [leader, ...others] = await holders();
      expect(others).toEqual([]);
      expect(pids).toContain(leader);
      const active = leader === a.pid ? a : b;
      const standby = active === a ? b : a;
      const exited = new Promise((r) => active.once('exit', r));
      active.kill('SIGKILL');
      await exited;
      const atKill = await relayed();
      expect(atKill).toBeLessThan(rows.length); // really mid-stream

      await until('the standby to take over', async () => (await holders()).includes(standby.pid!), 30_000);
      await until('the outbox to drain', async () => (await relayed()) === rows.length, 60_000);
      expect(await holders()).toEqual([standby.pid]);

      const seen = new Set<string>();
      const lastSeq = new Map<number, number>();
      for (const e of await streamMessages(redis, prefix)) {
        if (seen.has(e.event_id)) continue; // consumers dedupe by event id
        seen.add(e.event_id);
        expect(e.seq).toBe((lastSeq.get(e.order_id) ?? 0) + 1);
        lastSeq.set(e.order_id, e.seq);
      }
      expect(seen.size).toBe(rows.length);
      expect([...lastSeq.values()]).toEqual(Array(ORDER_COUNT).fill(PER_ORDER));
    } finally {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        }
      }
      rmSync(`/tmp/fulfil-takeover-${prefix}`, { recursive: true, force: true });
      await dropPrefix(prefix);
      await db.drop();
    }
  }, 180_000);

  it('run lost-command recovery once per period for the deployment, not once per process', async () => {
    const db = await createTestDatabase();
    const prefix = testPrefix();
    const PERIOD_MS = 100;
    const services: TestService[] = [];
    const listening = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const events = new QueueEvents(HOUSEKEEPING_QUEUE, { prefix, connection: listening });
    const runs: string[] = [];
    events.on('completed', ({ jobId }) => {
      if (jobId.includes(RECOVER_LOST)) runs.push(jobId);
    });
    try {
      await events.waitUntilReady();
      const started = Date.now();
      for (let i = 0; i < 3; i++) {
        services.push(
          await startTestService({ db, prefix, roles: { api: false, worker: true }, env: { RECOVERY_EVERY_MS: String(PERIOD_MS) } }),
        );
      }
      await until('several recovery runs', async () => runs.length >= 10);
      await new Promise((r) => setTimeout(r, 2_000));
      const elapsed = Date.now() - started;
      const counted = runs.length;
      // Three processes with a timer each would run it about three times per period. Each
      // process's upsert of the scheduler may add one run at once; beyond that, one per period.
      expect(new Set(runs).size).toBe(counted);
      expect(counted).toBeLessThanOrEqual(Math.ceil(elapsed / PERIOD_MS) + 1 + services.length);
    } finally {
      for (const s of services) await s.stop();
      await events.close();
      listening.disconnect();
      await dropPrefix(prefix);
      await db.drop();
    }
  }, 120_000);
});
