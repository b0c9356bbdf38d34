import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER, SELLER_USER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { valueWithin } from '../support/value-within.ts';

// Long polls of GET /v9/events share a process's places: one credential, or one brokerage,
// cannot take them all. Small caps here: 6 places, 2 per credential, 3 per brokerage.

describe('long poll caps', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  const hangUp = new AbortController();

  beforeAll(async () => {
    t = await startTestService({
      env: {
        HTTP_MAX_CONNECTIONS: '12',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
        FEED_WAITS_PER_CREDENTIAL: '2',
        FEED_WAITS_PER_BROKERAGE: '3',
      },
    });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    hangUp.abort();
    await t?.stop();
  });

  async function longPolls(): Promise<number> {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('fulfil_feed_long_polls '));
    return Number(line?.split(' ')[1] ?? NaN);
  }

  /** Opens `n` long polls of `cred` waiting up to `wait` seconds; `answered` fills as they answer (those refused at once). */
  function hold(cred: typeof SELLER, n: number, wait: number) {
    const answered: Array<{ status: number; retryAfter: string | null; body: unknown }> = [];
    for (let i = 0; i < n; i++)
      void signedFetch(t.url, cred, 'GET', `/v9/events?wait=${wait}`, undefined, {}, hangUp.signal)
        .then(async (res) => answered.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() }))
        .catch(() => {});
    return answered;
  }

  it("one credential past its cap is answered at once with 429, and another brokerage's long poll still waits and is served", async () => {
    // More than the process's places, from one credential.
    const hog = hold(SELLER, 7, 6);
    await valueWithin('every poll of the credential waiting or answered', async () =>
      hog.length + (await longPolls()) === 7 ? true : undefined,
    );
    expect(await longPolls()).toBe(2);
    expect(hog.map((a) => a.status)).toEqual([429, 429, 429, 429, 429]);
    for (const a of hog) {
      expect(a.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(a.body).toEqual({ errors: [{ code: 'rate_limited', message: expect.stringMatching(/long poll/) }] });
    }

    // The brokerage's other credential has the brokerage's last place, then is refused too.
    const colleague = hold(SELLER_USER, 2, 6);
    await valueWithin('the colleague waiting or answered', async () => (colleague.length + (await longPolls()) === 4 ? true : undefined));
    expect(await longPolls()).toBe(3);
    expect(colleague.map((a) => a.status)).toEqual([429]);

    // Other brokerages wait as usual: an empty page at the end of their wait.
    const [buyer, stranger] = await Promise.all([call(BUYER, 'GET', '/v9/events?wait=1'), call(STRANGER, 'GET', '/v9/events?wait=1')]);
    expect([buyer.status, stranger.status]).toEqual([200, 200]);
    expect(buyer.body).toMatchObject({ has_more: false });
    expect(await longPolls()).toBe(3);

    // The process's own limit stays: with every place taken, a poll is 503.
    const others = [hold(BUYER, 2, 6), hold(STRANGER, 1, 6)];
    await valueWithin('every place taken', async () => ((await longPolls()) === 6 ? true : undefined));
    const full = await call(STRANGER, 'GET', '/v9/events?wait=1');
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('1');

    // Polls that end give their places back: the credential waits again.
    const answered = () => hog.length === 7 && others.flat().length === 3;
    await valueWithin('every poll answered', async () => ((await longPolls()) === 0 && answered() ? true : undefined), 15_000);
    expect(hog.map((a) => a.status).sort()).toEqual([200, 200, 429, 429, 429, 429, 429]);
    const again = hold(SELLER, 2, 1);
    await valueWithin('the credential waiting again', async () => ((await longPolls()) === 2 ? true : undefined));
    await valueWithin('its polls answered', async () => (again.length === 2 ? true : undefined));
    expect(again.map((a) => a.status)).toEqual([200, 200]);
    expect(others.flat().map((a) => a.status)).toEqual([200, 200, 200]);
  });
});
