import { describe, expect, it } from 'vitest';
import { CallSlots } from '../../src/webhooks/call-slots.ts';

describe('webhook call slots', () => {
  it('never hands out more than the capacity, and serves waiting jobs in the order they asked', async () => {
    const slots = new CallSlots(4);
    const served: string[] = [];
    await slots.acquire(3);
    const big = slots.acquire(4).then(() => served.push('big'));
    // One slot is free, but the big job asked first: the small one waits behind it.
    const small = slots.acquire(1).then(() => served.push('small'));
    await new Promise((r) => setImmediate(r));
    expect(served).toEqual([]);
    expect(slots.inFlight).toBe(3);
    slots.release(3);
    await big;
    expect(served).toEqual(['big']);
    expect(slots.inFlight).toBe(4);
    slots.release(2);
    await small;
    expect(served).toEqual(['big', 'small']);
    expect(slots.inFlight).toBe(3);
    slots.release(3);
    expect(slots.inFlight).toBe(0);
  });

  it('refuses to wait for more slots than there are', () => {
    expect(() => new CallSlots(2).acquire(3)).toThrow(RangeError);
  });
});
