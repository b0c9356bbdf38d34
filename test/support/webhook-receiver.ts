import { createHmac } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  eventId: string;
  signature: string;
  raw: string;
  body: any;
  headers: IncomingMessage['headers'];
}

/** What the receiver does with a request: answer with a status, hang, or close mid-answer. */
export type Behaviour = (
  r: Received,
  n: number,
) => number | 'hang' | 'close-mid-answer' | { status: number; location?: string; delayMs?: number; headers?: Record<string, string> };

/** A real HTTP receiver on loopback, started by the test; it records what it acknowledged. */
export async function startReceiver(behaviour: Behaviour = () => 200, host = '127.0.0.1') {
  const all: Received[] = [];
  const acknowledged: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let current = behaviour;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const r: Received = {
        eventId: String(req.headers['fulfil-event-id']),
        signature: String(req.headers['fulfil-signature']),
        raw,
        body: JSON.parse(raw),
        headers: req.headers,
      };
      all.push(r);
      const action = current(r, all.length);
      if (action === 'hang') {
        hanging.add(res);
        return;
      }
      if (action === 'close-mid-answer') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        setTimeout(() => res.socket?.destroy(), 5);
        return;
      }
      const { status, location, delayMs, headers } =
        typeof action === 'number' ? { status: action, location: undefined, delayMs: 0, headers: {} } : action;
      const answer = () => {
        if (status >= 200 && status < 300) acknowledged.push(r);
        res.writeHead(status, { ...headers, ...(location ? { location } : {}) });
        res.end('ok');
      };
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/hook`,
    port,
    all,
    acknowledged,
    behave(b: Behaviour) {
      current = b;
    },
    async close() {
      for (const res of hanging) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a Fulfil-Signature header carries a v1 HMAC of `<t>.<raw>` under the secret. */
export function signedWith(secret: string, r: Received): boolean {
  const parts = r.signature.split(',');
  const t = parts.find((p) => p.startsWith('t='))!.slice(2);
  const expected = createHmac('sha256', secret).update(`${t}.${r.raw}`).digest('hex');
  return parts.some((p) => p === `v1=${expected}`);
}

export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
