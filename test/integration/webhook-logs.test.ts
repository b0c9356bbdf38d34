import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, until } from '../support/webhook-receiver.ts';

// The service's own logger (its redaction included), writing to memory instead of stdout.
const lines: Array<Record<string, unknown>> = [];
const memory = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

describe('webhook log lines', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_BASE_MS: '20', WEBHOOK_BACKOFF_MAX_MS: '50' },
      log: createLogger('debug', {}, memory),
    });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("a disabled endpoint's warning names its URL without the query string (a receiver's token)", async () => {
    const rx = await startReceiver(() => 410);
    try {
      const url = `http://127.0.0.1:${rx.port}/hook?token=query_token_s3cret&v=2`;
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      expect((await call(SELLER, 'POST', `/v9/webhook_endpoints/${id}/ping`, {})).status).toBe(202);
      await until('disabled by 410 Gone', async () => (await call(SELLER, 'GET', `/v9/webhook_endpoints/${id}`)).body.enabled === false);
      await until('the warning logged', () => lines.some((l) => l.endpointId === id && l.level === 40));
      const warning = lines.find((l) => l.endpointId === id && l.level === 40)!;
      expect(warning).toMatchObject({ reason: 'gone', url: `http://127.0.0.1:${rx.port}/hook?***` });
      expect(warning.msg).toMatch(/410 Gone/);
      expect(rx.all).toHaveLength(1);
      const leaked = lines.filter((l) => JSON.stringify(l).includes('query_token_s3cret'));
      expect(leaked).toEqual([]);
    } finally {
      await rx.close();
    }
  });
});
