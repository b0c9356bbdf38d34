import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, WebhookVerificationError, signPayload, verifyWebhook } from '@fulfil/contract';

const NOW = 1_800_000_000;
const BODY = JSON.stringify({ id: 'evt-1', type: 'shipment.created', order_id: 7, seq: 1 });

function refusal(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return err as WebhookVerificationError;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('webhook signatures', () => {
  it('signs t.<body> with HMAC-SHA256, one v1 per secret', () => {
    // Known answer: printf '1800000000.{}' | openssl dgst -sha256 -hmac whsec_a
    expect(signPayload(['whsec_a'], NOW, '{}')).toBe('t=1800000000,v1=f66ebcd4d4dfd6f204ad83d004ebfc0312e82e8dfe7df5110714cbc58099a9c8');
    const header = signPayload(['whsec_a', 'whsec_b'], NOW, BODY);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  });

  it('returns the parsed event for a good signature, whatever the header case or shape', () => {
    const header = signPayload(['whsec_a'], NOW, BODY);
    expect(verifyWebhook({ 'fulfil-signature': header }, BODY, ['whsec_a'], { now: NOW })).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(new Headers({ [SIGNATURE_HEADER]: header }), Buffer.from(BODY), ['whsec_a'], { now: NOW })).toEqual(
      JSON.parse(BODY),
    );
  });

  it('refuses a tampered body', () => {
    const header = signPayload(['whsec_a'], NOW, BODY);
    const tampered = BODY.replace('"seq":1', '"seq":2');
    expect(refusal(() => verifyWebhook({ [SIGNATURE_HEADER]: header }, tampered, ['whsec_a'], { now: NOW })).code).toBe(
      'no_matching_signature',
    );
  });

  it('refuses the wrong secret, and a re-signed timestamp', () => {
    const header = signPayload(['whsec_a'], NOW, BODY);
    expect(refusal(() => verifyWebhook({ [SIGNATURE_HEADER]: header }, BODY, ['whsec_other'], { now: NOW })).code).toBe(
      'no_matching_signature',
    );
    const moved = header.replace(`t=${NOW}`, `t=${NOW + 1}`);
    expect(refusal(() => verifyWebhook({ [SIGNATURE_HEADER]: moved }, BODY, ['whsec_a'], { now: NOW })).code).toBe('no_matching_signature');
  });

  it('refuses stale and future timestamps beyond the tolerance, accepts them within', () => {
    const header = signPayload(['whsec_a'], NOW, BODY);
    const at = (now: number, toleranceSeconds?: number) => () =>
      verifyWebhook({ [SIGNATURE_HEADER]: header }, BODY, ['whsec_a'], { now, toleranceSeconds });
    expect(at(NOW + 300)()).toBeTruthy();
    expect(refusal(at(NOW + 301)).code).toBe('stale_timestamp');
    expect(at(NOW - 300)()).toBeTruthy();
    expect(refusal(at(NOW - 301)).code).toBe('future_timestamp');
    expect(refusal(at(NOW + 11, 10)).code).toBe('stale_timestamp');
  });

  it('verifies with either secret while rotating', () => {
    const header = signPayload(['whsec_new', 'whsec_old'], NOW, BODY);
    expect(verifyWebhook({ [SIGNATURE_HEADER]: header }, BODY, ['whsec_old'], { now: NOW })).toEqual(JSON.parse(BODY));
    expect(verifyWebhook({ [SIGNATURE_HEADER]: header }, BODY, ['whsec_new'], { now: NOW })).toEqual(JSON.parse(BODY));
    const oneSecret = signPayload(['whsec_new'], NOW, BODY);
    expect(verifyWebhook({ [SIGNATURE_HEADER]: oneSecret }, BODY, ['whsec_old', 'whsec_new'], { now: NOW })).toEqual(JSON.parse(BODY));
  });

  it('refuses missing and malformed headers', () => {
    const v = (headers: Record<string, string>) => () => verifyWebhook(headers, BODY, ['whsec_a'], { now: NOW });
    expect(refusal(v({})).code).toBe('missing_signature');
    expect(refusal(v({ [SIGNATURE_HEADER]: '' })).code).toBe('missing_signature');
    const good = signPayload(['whsec_a'], NOW, BODY);
    const v1 = good.split(',')[1]!;
    for (const bad of ['garbage', `t=${NOW}`, v1, `t=abc,${v1}`, `t=${NOW},v1=xyz`, `t=${NOW},t=${NOW},${v1}`, `t=-5,${v1}`]) {
      expect(refusal(v({ [SIGNATURE_HEADER]: bad })).code, bad).toBe('malformed_signature');
    }
    // An unknown scheme beside a good v1 is ignored, not refused.
    expect(v({ [SIGNATURE_HEADER]: `${good},v2=whatever` })()).toBeTruthy();
  });

  it('refuses a correctly signed body that is not JSON', () => {
    const header = signPayload(['whsec_a'], NOW, 'not json');
    expect(refusal(() => verifyWebhook({ [SIGNATURE_HEADER]: header }, 'not json', ['whsec_a'], { now: NOW })).code).toBe('malformed_body');
  });

  it('throws at call time for an empty secret or no secret at all: a body signed with the empty key never verifies', () => {
    // What a forger holding no secret can make: the HMAC under the empty key.
    const forged = `t=${NOW},v1=${createHmac('sha256', '').update(`${NOW}.${BODY}`).digest('hex')}`;
    const headers = { [SIGNATURE_HEADER]: forged };
    expect(() => verifyWebhook(headers, BODY, [''], { now: NOW })).toThrow(/secret.*empty/);
    expect(() => verifyWebhook(headers, BODY, ['whsec_a', ''], { now: NOW })).toThrow(TypeError);
    expect(() => verifyWebhook(headers, BODY, [], { now: NOW })).toThrow(/at least one secret/);
    expect(() => signPayload([''], NOW, BODY)).toThrow(/secret.*empty/);
    // A call-time mistake, not a refused request: never a WebhookVerificationError (a 400 would hide it).
    expect(() => verifyWebhook(headers, BODY, [''], { now: NOW })).not.toThrow(WebhookVerificationError);
  });

  it('throws for a tolerance or clock that is not a finite, non-negative number of seconds', () => {
    const stale = signPayload(['whsec_a'], NOW - 86_400, BODY);
    const v = (options: { toleranceSeconds?: number; now?: number }) => () =>
      verifyWebhook({ [SIGNATURE_HEADER]: stale }, BODY, ['whsec_a'], { now: NOW, ...options });
    for (const toleranceSeconds of [NaN, Infinity, -Infinity, -1]) {
      expect(v({ toleranceSeconds }), String(toleranceSeconds)).toThrow(/toleranceSeconds/);
    }
    expect(v({ now: NaN })).toThrow(/now/);
    expect(refusal(v({ toleranceSeconds: 0 })).code).toBe('stale_timestamp');
    expect(v({ toleranceSeconds: 86_400 })()).toEqual(JSON.parse(BODY));
  });
});
