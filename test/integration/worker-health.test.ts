import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

// A worker process has no HTTP ingress; with METRICS_PORT it answers GET /livez there, which is
// what the compose file's worker healthcheck asks.

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('worker /livez', () => {
  let t: TestService | undefined;
  afterAll(async () => {
    await t?.stop();
  });

  it('answers on METRICS_PORT while the worker runs, and stops answering when it stops', async () => {
    const port = await freePort();
    t = await startTestService({ roles: { api: false, worker: true }, env: { METRICS_PORT: String(port) } });
    expect(t.service.url).toBeUndefined(); // no API in this process
    const live = await fetch(`http://127.0.0.1:${port}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const other = await fetch(`http://127.0.0.1:${port}/v9/orders/1`);
    expect(other.status).toBe(404);

    await t.stop();
    t = undefined;
    await expect(fetch(`http://127.0.0.1:${port}/livez`)).rejects.toThrow();
  });
});
