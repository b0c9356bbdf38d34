import { describe, expect, it } from 'vitest';
import { RETRY_DELAY_CAP_MS, retryDelay, DEFAULT_JOB_OPTIONS } from '@fulfil/contract';

describe('retry backoff', () => {
  it('doubles from the base, jittered within the upper half, and never passes the cap', () => {
    for (let attempt = 1; attempt <= 60; attempt++) {
      const full = Math.min(RETRY_DELAY_CAP_MS, 250 * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i++) {
        const d = retryDelay(attempt, 250);
        expect(d).toBeGreaterThanOrEqual(Math.round(full / 2));
        expect(d).toBeLessThanOrEqual(full);
      }
    }
    expect(retryDelay(40, 250)).toBeLessThanOrEqual(5_000);
  });

  it('gives the default attempts minutes, not hours, of retrying', () => {
    let worst = 0;
    for (let a = 1; a < DEFAULT_JOB_OPTIONS.attempts; a++) worst += Math.min(RETRY_DELAY_CAP_MS, 250 * 2 ** (a - 1));
    expect(worst).toBeGreaterThan(120_000);
    expect(worst).toBeLessThan(240_000);
  });
});
