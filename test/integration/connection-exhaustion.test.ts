import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdle, signedCallFrom, VICTIM_ADDRESS } from '../../chaos/connection-exhaustion.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// One client must not lock everyone out of HTTP_MAX_CONNECTIONS (1,000 by default) by holding
// idle keep-alive sockets. Linux routes all of 127/8 to loopback, so attackers and the victim
// are told apart by the source address their sockets bind.

const VICTIM = VICTIM_ADDRESS;
const victimCall = (baseUrl: string, from: string) => signedCallFrom(baseUrl, from, SELLER);

describe('connection exhaustion', () => {
  let t: TestService;
  const held: net.Socket[] = [];
  beforeAll(async () => {
    t = await startTestService({ roles: { api: true, worker: false } });
    await t.seed(baseFixture());
  });
  afterAll(async () => {
    held.forEach((s) => s.destroy());
    await t?.stop();
  });
  const port = () => Number(new URL(t.url).port);
  const release = () => held.splice(0).forEach((s) => s.destroy());

  it('1,000 idle keep-alive sockets from one address: another client is still answered', async () => {
    await openIdle(port(), '127.0.0.2', 1_000, held);
    await new Promise((r) => setTimeout(r, 300));
    // The attacker keeps a tenth of the cap at most: the server closed the rest.
    expect(held.filter((s) => !s.destroyed).length).toBeLessThanOrEqual(100);
    const res = await victimCall(t.url, VICTIM);
    expect(res).toMatchObject({ status: 200 });
    expect(JSON.parse((res as { body: string }).body)).toMatchObject({ token: SELLER.token });
    release();
  }, 60_000);

  it('the cap filled by idle sockets of many addresses: the longest idle makes room, the victim is answered', async () => {
    // Ten attackers of 100 sockets each: within the per-address limit, the whole cap together.
    for (let a = 4; a < 14; a++) await openIdle(port(), `127.0.0.${a}`, 100, held);
    expect(held.length).toBe(1_000);
    const res = await victimCall(t.url, VICTIM);
    expect(res).toMatchObject({ status: 200 });
    release();
  }, 60_000);
});
