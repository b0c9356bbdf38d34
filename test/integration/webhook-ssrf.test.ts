import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedAddress } from '../../src/webhooks/send.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver, until } from '../support/webhook-receiver.ts';

// Production rules (WEBHOOK_ALLOW_PRIVATE unset). Host names resolve through a table the test
// controls, as a DNS server under an attacker's control would answer: public at creation, private
// at delivery time.
const dns = new Map<string, ResolvedAddress[]>();
const v4 = (address: string) => ({ address, family: 4 });
const v6 = (address: string) => ({ address, family: 6 });

// IPv6 spellings of loopback, private and metadata addresses, and ranges that are not global unicast.
const IPV6_NOT_GLOBAL = [
  '::127.0.0.1',
  '::10.0.0.1',
  '::ffff:0:127.0.0.1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::7f00:1',
  '2002:7f00:1::1',
  '2001::1',
  '2001:db8::1',
  'fec0::1',
  'ff02::1',
];

describe('webhook SSRF rules and the retry window', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({
      env: {
        WEBHOOK_BACKOFF_BASE_MS: '10',
        WEBHOOK_BACKOFF_MAX_MS: '50',
        WEBHOOK_RETRY_WINDOW_MS: '400',
        WEBHOOK_SWEEP_EVERY_MS: '500',
      },
      hooks: {
        webhookResolve: async (host) => {
          const answer = dns.get(host);
          if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
          return answer;
        },
      },
    });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('refuses non-https, private, loopback, link-local, metadata, unspecified and mapped addresses; nothing stored', async () => {
    dns.set('inside.example', [v4('10.1.2.3')]);
    dns.set('mixed.example', [v4('93.184.216.34'), v4('127.0.0.1')]);
    dns.set('inside6.example', [v6('2606:4700:4700::1111'), v6('::ffff:0:7f00:1')]);
    const refused = [
      'http://93.184.216.34/hook',
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:a9fe:a9fe]/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00:ec2::254]/',
      'https://0.0.0.0/',
      'https://[::]/',
      'https://10.0.0.1/',
      'https://172.20.1.1/',
      'https://192.168.1.1/',
      'https://100.100.100.200/',
      'https://[fe80::1]/',
      'https://[64:ff9b::7f00:1]/',
      ...IPV6_NOT_GLOBAL.map((a) => `https://[${a}]/`),
      'https://inside.example/hook',
      'https://inside6.example/hook',
      'https://mixed.example/hook',
      'https://nowhere.example/hook',
      'https://user:pw@93.184.216.34/hook',
    ];
    for (const url of refused) {
      const res = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url });
      expect(res.status, url).toBe(400);
      expect(res.body.errors[0], url).toMatchObject({ code: 'invalid_params', field: 'url' });
    }
    const [row] = await t.db.database.sql!`select count(*)::int as n from webhook_endpoints`;
    expect(row!.n).toBe(0);
    // A receiver on the developer's own machine is refused with the switch that allows it in development.
    for (const url of ['http://127.0.0.1:4000/hook', 'https://127.0.0.1/hook']) {
      const res = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url });
      expect(res.body.errors[0].message, url).toContain('set WEBHOOK_ALLOW_PRIVATE=true in development');
    }
  });

  it('a name that resolves to a private address at delivery time is refused there; failing for the window disables', async () => {
    const rx = await startReceiver(); // must never hear a thing
    try {
      dns.set('rebind.example', [v4('93.184.216.34')]);
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: `https://rebind.example:${rx.port}/hook` });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      dns.set('rebind.example', [v4('127.0.0.1')]);
      expect((await call(SELLER, 'POST', `/v9/webhook_endpoints/${id}/ping`, {})).status).toBe(202);

      await until(
        'disabled after the retry window',
        async () => (await call(SELLER, 'GET', `/v9/webhook_endpoints/${id}`)).body.enabled === false,
      );
      const endpoint = await call(SELLER, 'GET', `/v9/webhook_endpoints/${id}`);
      expect(endpoint.body).toMatchObject({ disabled_reason: 'failing', disabled_at: expect.any(String) });
      const log = (await call(SELLER, 'GET', `/v9/webhook_endpoints/${id}/deliveries?limit=500`)).body.attempts as Array<{
        outcome: string;
        error: string;
      }>;
      expect(log[0]).toMatchObject({ outcome: 'disabled', error: expect.stringContaining('retry window') });
      expect(log.slice(1).length).toBeGreaterThan(1);
      for (const a of log.slice(1)) expect(a).toMatchObject({ outcome: 'refused_address', error: expect.stringContaining('127.0.0.1') });
      expect(rx.all).toHaveLength(0);

      const metrics = parsePrometheusTextFormat(await (await fetch(`${t.url}/metrics`)).text());
      type Sample = { labels?: Record<string, string>; value: string };
      const family = (name: string) => metrics.find((m) => m.name === name) as { metrics: Sample[] } | undefined;
      expect(family('fulfil_webhook_endpoints_disabled')!.metrics).toContainEqual({ labels: { mode: 'live' }, value: '1' });
      expect(family('fulfil_webhook_backlog')!.metrics).toContainEqual({ labels: { endpoint_id: String(id), mode: 'live' }, value: '1' });
      const refusedCount = family('fulfil_webhook_attempts_total')!.metrics.find((m) => m.labels?.outcome === 'refused_address');
      expect(Number(refusedCount!.value)).toBeGreaterThan(1);
      expect(family('fulfil_webhook_delivery_latency_seconds')).toBeDefined();
      expect((await fetch(`${t.url}/ops/queues/api/queues`)).status).toBeLessThan(500);
    } finally {
      await rx.close();
    }
  });

  it('a name that resolves to an IPv6 form of a private address at delivery time is refused there', async () => {
    const rx = await startReceiver(); // must never hear a thing
    try {
      const ids = new Map<string, number>();
      for (const [i, address] of IPV6_NOT_GLOBAL.entries()) {
        const host = `rebind6-${i}.example`;
        dns.set(host, [v6('2606:4700:4700::1111')]);
        const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: `https://${host}:${rx.port}/hook` });
        expect(created.status, address).toBe(201);
        ids.set(address, created.body.id as number);
        dns.set(host, [v6(address)]);
        expect((await call(SELLER, 'POST', `/v9/webhook_endpoints/${created.body.id}/ping`, {})).status).toBe(202);
      }
      for (const [address, id] of ids) {
        type Attempt = { outcome: string; error: string };
        let first: Attempt | undefined;
        await until(`an attempt to ${address}`, async () => {
          const log = (await call(SELLER, 'GET', `/v9/webhook_endpoints/${id}/deliveries?limit=500`)).body.attempts as Attempt[];
          first = log.at(-1);
          return first !== undefined;
        });
        expect(first, address).toMatchObject({ outcome: 'refused_address', error: expect.stringContaining(address) });
      }
      expect(rx.all).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });

  it('WEBHOOK_ALLOW_PRIVATE cannot be set in production', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
  });
});
