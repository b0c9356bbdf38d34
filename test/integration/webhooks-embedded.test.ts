import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { startBuiltService, stopBuiltService } from '../support/built-service.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { signedWith, startReceiver, until } from '../support/webhook-receiver.ts';

/**
 * Webhooks as `npm start` runs them on a fresh machine: the built service on the embedded
 * database (no DATABASE_URL). Claims and acknowledgements there go through the same statements
 * (chain locks, commits without the WAL flush) as on a Postgres server.
 */
describe('webhooks on the embedded database', () => {
  let service: ChildProcess;
  let url: string;
  let dataDir: string;
  const prefix = testPrefix();

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-webhooks-embedded-'));
    const fixture = path.join(dataDir, 'fixture.json');
    writeFileSync(fixture, JSON.stringify(baseFixture()));
    const env = { DATA_DIR: path.join(dataDir, 'data'), REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix, WEBHOOK_ALLOW_PRIVATE: 'true' };
    ({ child: service, url } = await startBuiltService(env, ['--seed', fixture]));
  }, 60_000);
  afterAll(async () => {
    if (service && service.exitCode === null) await stopBuiltService(service);
    await dropPrefix(prefix);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("delivers an order's events in order, each once, signed", async () => {
    const rx = await startReceiver();
    try {
      const call = apiClient(url);
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);
      const { secret } = created.body as { secret: string };
      await linkDeliveryFlow(call, ORDERS.tbd);
      await until('three events acknowledged', () => rx.acknowledged.length >= 3);
      expect(rx.acknowledged.map((r) => [r.body.order_id, r.body.seq, r.body.type])).toEqual([
        [ORDERS.tbd, 1, 'shipment.created'],
        [ORDERS.tbd, 2, 'shipment.updated'],
        [ORDERS.tbd, 3, 'shipment.completed'],
      ]);
      for (const r of rx.acknowledged) expect(signedWith(secret, r)).toBe(true);
      // Acknowledged in the database too: a redelivery would otherwise follow.
      const log = await call(SELLER, 'GET', `/v9/webhook_endpoints/${(created.body as { id: number }).id}/deliveries`);
      expect(log.status).toBe(200);
      expect(JSON.stringify(log.body)).toContain('"success"');
    } finally {
      await rx.close();
    }
  });
});
