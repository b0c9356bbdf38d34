import { describe, expect, it } from 'vitest';
import { CallSlots } from '../../src/webhooks/call-slots.ts';

const a = (endpointId: number) => ({ brokerageId: 1, endpointId });
const b = (endpointId: number) => ({ brokerageId: 2, endpointId: 100 + endpointId });
const c = (endpointId: number) => ({ brokerageId: 3, endpointId: 200 + endpointId });
const tick = () => new Promise((r) => setImmediate(r));

describe('webhook call slots', () => {
  it('never hands out more than the capacity; a caller gets what is free to it, at least one', async () => {
    const slots = new CallSlots(4);
    expect(await slots.acquire(a(1), 3)).toBe(3);
    expect(await slots.acquire(b(1), 4)).toBe(1);
    expect(slots.inFlight).toBe(4);
    let got = 0;
    const waiting = slots.acquire(c(1), 2).then((n) => (got = n));
    await tick();
    expect(got).toBe(0);
    slots.release(a(1), 3);
    await waiting;
    expect(got).toBe(2);
    expect(slots.inFlight).toBe(3);
  });

  it('keeps a brokerage and an endpoint to their caps, and the reserve for brokerages with nothing in flight', () => {
    const slots = new CallSlots(16, { perBrokerage: 8, perEndpoint: 4, reserve: 2 });
    expect(slots.tryAcquire(a(1), 16)).toBe(4); // the endpoint's cap
    expect(slots.tryAcquire(a(2), 16)).toBe(4); // the brokerage's cap
    expect(slots.tryAcquire(a(3), 1)).toBe(0);
    expect(slots.tryAcquire(b(1), 4)).toBe(4);
    expect(slots.tryAcquire(b(2), 4)).toBe(2); // 4 free, 2 of them reserved
    expect(slots.tryAcquire(b(3), 1)).toBe(0);
    // A brokerage with nothing in flight takes one reserved slot, no more.
    expect(slots.tryAcquire(c(1), 4)).toBe(1);
    expect(slots.tryAcquire(c(2), 1)).toBe(0);
    expect(slots.tryAcquire({ brokerageId: 4, endpointId: 400 }, 1)).toBe(1);
    expect(slots.inFlight).toBe(16);
    expect(slots.inFlightOf(1)).toBe(8);
  });

  it('serves waiting brokerages in turn, the one with the fewest calls in flight first', async () => {
    const slots = new CallSlots(4, { perBrokerage: 4, perEndpoint: 4, reserve: 0 });
    expect(slots.tryAcquire(a(1), 3)).toBe(3);
    expect(slots.tryAcquire(b(1), 1)).toBe(1);
    const served: string[] = [];
    const asks = [
      slots.acquire(a(2), 1).then(() => served.push('a2')),
      slots.acquire(a(3), 1).then(() => served.push('a3')),
      slots.acquire(a(4), 1).then(() => served.push('a4')),
      slots.acquire(b(2), 1).then(() => served.push('b2')),
      slots.acquire(c(1), 1).then(() => served.push('c1')),
    ];
    await tick();
    // One slot at a time. a: 2 in flight, b: 1, c: none, so c first; then a and b are level (1
    // each) and take turns, a's callers in the order they asked.
    for (const holder of [a(1), a(1), a(1), b(1), b(1)]) {
      slots.release(holder, 1);
      await tick();
    }
    await Promise.all(asks);
    expect(served).toEqual(['c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('passes over a waiting caller whose endpoint is at its cap', async () => {
    const slots = new CallSlots(4, { perBrokerage: 4, perEndpoint: 2, reserve: 0 });
    expect(slots.tryAcquire(a(1), 2)).toBe(2);
    expect(slots.tryAcquire(a(2), 2)).toBe(2);
    const served: string[] = [];
    const first = slots.acquire(a(1), 1).then(() => served.push('a1'));
    const second = slots.acquire(a(3), 1).then(() => served.push('a3'));
    slots.release(a(2), 1);
    await second;
    expect(served).toEqual(['a3']);
    slots.release(a(1), 1);
    await first;
    expect(served).toEqual(['a3', 'a1']);
  });

  it('lets a brokerage queue only as many callers as it may have calls in flight, and no more than there are slots', async () => {
    const slots = new CallSlots(4, { perBrokerage: 2, perEndpoint: 2, reserve: 0 });
    slots.tryAcquire(a(1), 2);
    expect(slots.mayWait(a(2))).toBe(true);
    void slots.acquire(a(2), 1);
    void slots.acquire(a(3), 1);
    expect(slots.mayWait(a(4))).toBe(false);
    slots.tryAcquire(b(1), 2);
    void slots.acquire(b(2), 1);
    expect(slots.mayWait(b(3))).toBe(true);
    void slots.acquire(b(3), 1);
    expect(slots.mayWait(c(1))).toBe(false);
  });

  it('refuses to ask for no slots', () => {
    expect(() => new CallSlots(2).acquire(a(1), 0)).toThrow(RangeError);
  });
});
