import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FulfilmentClient, InvalidParams, Unavailable } from '@fulfil/client';

// Issue 54, finding 8 (D-167): every method of the client package is in its implementation (not
// only in its declarations), takes one argument shape, and is documented in its README with an
// example that the client itself takes (an example refused by its own validation fails here).

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'packages/client/README.md'), 'utf8');
/** Methods that are not a command: nothing to show with a body. */
const NOT_COMMANDS = new Set(['constructor', 'ready', 'close', 'send']);

/** The public methods the source declares on FulfilmentClient (what the published .d.ts lists). */
function declaredMethods(): string[] {
  const source = readFileSync(path.join(ROOT, 'packages/client/src/client/fulfilment-client.ts'), 'utf8');
  return [...source.matchAll(/^ {2}(?:async )?(\w+)(?:<[^>]*>)?\(/gm)].map((m) => m[1]!).filter((n) => n !== 'constructor');
}

/** Each `await client.<method>(…);` of the README's code blocks, with the method's name. */
function readmeCalls(): Array<{ method: string; code: string }> {
  const blocks = [...README.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const calls: Array<{ method: string; code: string }> = [];
  for (const block of blocks) {
    for (const statement of block.split(/\);[^\n]*\n/).map((s) => `${s})`)) {
      const m = /^\s*await client\.(\w+)\(([\s\S]*)\)\s*$/.exec(statement);
      if (m) calls.push({ method: m[1]!, code: `client.${m[1]}(${m[2]})` });
    }
  }
  return calls;
}

describe('the client package: its methods, their one shape, the README', () => {
  // Nowhere to connect: a command its validation takes is then refused as Unavailable.
  const client = new FulfilmentClient({ redisUrl: 'redis://127.0.0.1:1', connectTimeoutMs: 200 });
  afterAll(() => client.close());

  it('implements every method it declares', () => {
    const declared = declaredMethods().filter((n) => !['dispatch', 'awaitResult', 'timeoutError', 'resultOf', 'connected'].includes(n));
    expect(declared.length).toBeGreaterThan(20);
    for (const name of declared) {
      if (/^(private|checkOptions|waiters)/.test(name)) continue;
      expect([name, typeof (client as unknown as Record<string, unknown>)[name]]).toEqual([name, 'function']);
    }
  });

  it('documents every command method with an example, each id snake_case beside the body', () => {
    const methods = Object.getOwnPropertyNames(FulfilmentClient.prototype).filter(
      (n) => !NOT_COMMANDS.has(n) && typeof (FulfilmentClient.prototype as unknown as Record<string, unknown>)[n] === 'function',
    );
    const documented = new Set(readmeCalls().map((c) => c.method));
    const privateOnes = new Set(['dispatch', 'awaitResult', 'timeoutError', 'resultOf', 'connected', 'checkOptions', 'waiters']);
    for (const m of methods.filter((n) => !privateOnes.has(n))) expect([m, documented.has(m)]).toEqual([m, true]);
    expect(README).not.toMatch(/\b(shipmentId|orderId|issueId|officeId|remoteIds|trackingNumber)\b/);
  });

  it("takes every README example (the client's own validation passes it; only Redis is missing)", async () => {
    const opts = { brokerageId: 1, await: true } as const;
    const run = (code: string) =>
      new Function('client', 'opts', 'buyerOpts', 'sellerOpts', `return ${code};`)(client, opts, opts, opts) as Promise<unknown>;
    const calls = readmeCalls();
    expect(calls.length).toBeGreaterThan(20);
    for (const { method, code } of calls) {
      const err = await run(code).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect([method, err instanceof InvalidParams ? (err as Error).message : 'not refused']).toEqual([method, 'not refused']);
      expect([method, err instanceof Unavailable]).toEqual([method, true]);
    }
  });

  it('names an id refused as the caller spelled it', async () => {
    await expect(client.updateShipment({ shipment_id: 0, mobile_transfer_type: 'XMobile' }, { brokerageId: 1 })).rejects.toThrow(
      /^shipment_id: must be a positive integer/,
    );
    await expect(client.removeInventory({ office_id: -1, remote_ids: [1] }, { brokerageId: 1 })).rejects.toThrow(
      /^office_id: must be a positive integer/,
    );
    await expect(client.setTrackingNumber({ shipment_id: 5, trackingNumber: '1Z' } as never, { brokerageId: 1 })).rejects.toThrow(
      /tracking_number/,
    );
  });
});
