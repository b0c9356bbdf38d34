import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { signStandardWebhook, standardWebhookHeaders, standardWebhooksKey, toStandardWebhooksSecret } from '@fulfil/contract';

describe('Standard Webhooks signing', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('a secret of the old base64url form signs what its standard-base64 form verifies', () => {
    const bytes = randomBytes(32);
    const legacy = `whsec_${bytes.toString('base64url')}`;
    const standard = toStandardWebhooksSecret(legacy);
    expect(standard).toBe(`whsec_${bytes.toString('base64')}`);
    expect(toStandardWebhooksSecret(standard)).toBe(standard);
    expect(standardWebhooksKey(legacy)).toEqual(bytes);
    const body = '{"id":"evt_1","type":"ping"}';
    const headers = standardWebhookHeaders([legacy], 'evt_1', now(), body);
    expect(new Webhook(standard).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('one v1 entry per secret, space-separated, the new secret first; each verifies alone', () => {
    const [a, b] = [toStandardWebhooksSecret(`whsec_${randomBytes(32).toString('base64')}`), `whsec_${randomBytes(32).toString('base64')}`];
    const t = now();
    const value = signStandardWebhook([a, b], 'msg_1', t, '{}');
    expect(value.split(' ')).toEqual([signStandardWebhook([a], 'msg_1', t, '{}'), signStandardWebhook([b], 'msg_1', t, '{}')]);
    for (const secret of [a, b]) {
      const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(t), 'webhook-signature': value };
      expect(new Webhook(secret).verify('{}', headers)).toEqual({});
    }
  });

  it('refuses what is not a whsec_ base64 key, and ids that are not header-safe', () => {
    expect(() => standardWebhooksKey('plain-secret')).toThrow(TypeError);
    expect(() => standardWebhooksKey('whsec_***')).toThrow(TypeError);
    expect(() => standardWebhooksKey('whsec_c2hvcnQ=')).toThrow(/16 bytes/);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => signStandardWebhook([secret], 'a b', now(), '')).toThrow(TypeError);
    expect(() => signStandardWebhook([], 'a', now(), '')).toThrow(TypeError);
  });
});
