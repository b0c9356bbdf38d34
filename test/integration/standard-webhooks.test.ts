import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signedWith, startReceiver, until, type Received } from '../support/webhook-receiver.ts';

// Real deliveries of a running service, checked by the Standard Webhooks reference verifier for
// JavaScript (npm `standardwebhooks`) exactly as a receiver uses it: the secret as the API showed
// it, the raw body, the headers as received. Across a rotation, each secret verifies on its own.

/** What `new Webhook(secret).verify(...)` makes of a delivery: its event, or the verifier's refusal. */
function verifiedWith(secret: string, r: Received): unknown {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
  try {
    return new Webhook(secret).verify(r.raw, headers);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return `refused: ${err.message}`;
    throw err;
  }
}

describe('Standard Webhooks', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RELAY_INTERVAL_MS: '50', WEBHOOK_SWEEP_EVERY_MS: '500' } });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('the standardwebhooks package verifies real deliveries, with either secret during a rotation and only the current one after it', async () => {
    const rx = await startReceiver();
    try {
      const created = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: rx.url });
      expect(created.status).toBe(201);
      const first = created.body.secret as string;
      // Standard Webhooks' own form: whsec_ and padded standard base64 of 32 bytes.
      expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const id = created.body.id as number;

      await linkDeliveryFlow(call, ORDERS.tbd);
      await until('the flow delivered', () => rx.acknowledged.some((r) => r.body.type === 'shipment.completed'));
      const before = [...rx.acknowledged];
      expect(before.map((r) => r.body.type)).toEqual(['shipment.created', 'shipment.updated', 'shipment.completed']);
      for (const r of before) {
        expect(verifiedWith(first, r)).toEqual(JSON.parse(r.raw));
        expect(r.headers['webhook-id']).toBe(r.body.id);
        expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
        expect(String(r.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        // Fulfil-Signature goes on beside it, keyed as before.
        expect(signedWith(first, r)).toBe(true);
      }

      // Rotation with a grace period: two signatures, one per secret, space-separated.
      const rotated = await call(SELLER, 'POST', `/v9/webhook_endpoints/${id}/rotate_secret`, { grace_seconds: 600 });
      expect(rotated.status).toBe(200);
      const second = rotated.body.secret as string;
      expect((await call(SELLER, 'POST', `/v9/webhook_endpoints/${id}/ping`, {})).status).toBe(202);
      await until('pinged during the grace', () => rx.acknowledged.some((r) => r.body.type === 'ping'));
      const during = rx.acknowledged.find((r) => r.body.type === 'ping')!;
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifiedWith(second, during)).toEqual(JSON.parse(during.raw));
      expect(verifiedWith(first, during)).toEqual(JSON.parse(during.raw));

      // A rotation without grace: the previous secret stops signing at once.
      const third = (await call(SELLER, 'POST', `/v9/webhook_endpoints/${id}/rotate_secret`, { grace_seconds: 0 })).body.secret as string;
      await call(SELLER, 'POST', `/v9/webhook_endpoints/${id}/ping`, {});
      await until('pinged after the grace', () => rx.acknowledged.filter((r) => r.body.type === 'ping').length === 2);
      const after = rx.acknowledged.filter((r) => r.body.type === 'ping')[1]!;
      expect(verifiedWith(third, after)).toEqual(JSON.parse(after.raw));
      expect(verifiedWith(second, after)).toBe('refused: No matching signature found');
      expect(verifiedWith(first, after)).toBe('refused: No matching signature found');

      // A tampered body fails, as any receiver's check must.
      expect(verifiedWith(third, { ...after, raw: after.raw.replace('ping', 'pong') })).toBe('refused: No matching signature found');
    } finally {
      await rx.close();
    }
  });
});
