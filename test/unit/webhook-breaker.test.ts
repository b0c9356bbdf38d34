import { describe, expect, it } from 'vitest';
import { Breakers } from '../../src/webhooks/breaker.ts';
import { parseRetryAfter } from '../../src/webhooks/send.ts';

const policy = { failures: 3, cooldownMs: 1_000, maxCooldownMs: 8_000, probeWindowMs: 500 };

describe('webhook circuit breaker', () => {
  it('opens after the failures in a row, lets one probe through after the cool-down, and closes on an answer', () => {
    let now = 0;
    const b = new Breakers(policy, () => now);
    b.record(1, { outcome: 'timeout' });
    b.record(1, { outcome: 'network' });
    expect(b.gate(1)).toEqual({ pass: true, probe: false });
    b.record(1, { outcome: 'timeout' });
    const held = b.gate(1);
    expect(held).toMatchObject({ pass: false, reason: 'breaker' });
    const until = (held as { untilMs: number }).untilMs;
    // The first cool-down is drawn from the upper half of cooldownMs.
    expect(until).toBeGreaterThanOrEqual(500);
    expect(until).toBeLessThanOrEqual(1_000);
    expect(b.closed(1)).toBe(false);
    expect(b.openCount).toBe(1);
    expect(b.gate(2)).toEqual({ pass: true, probe: false });

    now = until;
    expect(b.gate(1)).toEqual({ pass: true, probe: true });
    // While the probe is out nobody else calls.
    expect(b.gate(1)).toEqual({ pass: false, untilMs: until + 500, reason: 'breaker' });
    b.record(1, { outcome: 'http_error' });
    expect(b.closed(1)).toBe(true);
    expect(b.openCount).toBe(0);
  });

  it('a failed probe opens it again for about twice as long, up to the most', () => {
    let now = 0;
    const b = new Breakers({ ...policy, failures: 1 }, () => now);
    b.record(1, { outcome: 'timeout' });
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const until = b.heldUntil(1)!;
      waits.push(until - now);
      now = until;
      expect(b.gate(1)).toEqual({ pass: true, probe: true });
      b.record(1, { outcome: 'timeout' });
    }
    // Each drawn from the upper half of 1, 2, 4, 8, 8, 8 s.
    [1_000, 2_000, 4_000, 8_000, 8_000, 8_000].forEach((step, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(step / 2);
      expect(waits[i]).toBeLessThanOrEqual(step);
    });
  });

  it("holds an endpoint for a receiver's Retry-After, then lets one call through; a refused address changes nothing", () => {
    let now = 0;
    const b = new Breakers(policy, () => now);
    b.record(1, { outcome: 'timeout' });
    b.record(1, { outcome: 'refused_address' });
    b.record(1, { outcome: 'http_error', retryAfterMs: 2_000 });
    expect(b.gate(1)).toEqual({ pass: false, untilMs: 2_000, reason: 'retry_after' });
    now = 2_000;
    expect(b.gate(1)).toEqual({ pass: true, probe: true });
    b.record(1, { outcome: 'success' });
    expect(b.closed(1)).toBe(true);
    // The failures before the Retry-After were forgiven: it takes three new ones to open.
    b.record(1, { outcome: 'timeout' });
    b.record(1, { outcome: 'timeout' });
    expect(b.closed(1)).toBe(true);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  it('reads delay-seconds and HTTP-dates; a past date is 0; anything else is ignored', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Tue, 24 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tuesday, 24-Nov-26 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
    for (const bad of [undefined, '', '-1', '1.5', 'soon', '2026-11-24']) expect(parseRetryAfter(bad, now), String(bad)).toBeUndefined();
  });
});
