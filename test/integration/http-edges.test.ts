import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Requests fetch cannot send (malformed percent-encoding kept as is, a garbage request line,
 * headers over Node's limit) and requests arriving while the server closes: each must still be
 * answered in the contract's body shape (docs/API.md §Errors), never in Fastify's or Node's own.
 */

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw)}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const length = Number(headers['content-length']);
  const body = raw.slice(end + 4, end + 4 + length);
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)![1]), headers, body };
}

/** Every response in `raw` (several when requests were pipelined), in order. */
function parseResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const r = parseResponse(rest);
    out.push(r);
    rest = rest.slice(rest.indexOf('\r\n\r\n') + 4 + Buffer.byteLength(r.body));
  }
  return out;
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** Collects everything the server sends until it closes the connection. */
function readUntilClosed(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

/** Writes raw bytes on a fresh connection and returns the single response the server sends before closing. */
async function rawExchange(port: number, request: string): Promise<RawResponse> {
  const socket = await connect(port);
  const all = readUntilClosed(socket);
  socket.write(request);
  return parseResponse(await all);
}

const portOf = (url: string) => Number(new URL(url).port);
const JSON_TYPE = 'application/json; charset=utf-8';

describe('HTTP edges answer in the contract shape', () => {
  let t: TestService;
  let port: number;
  beforeAll(async () => {
    t = await startTestService({ roles: { api: true, worker: false } });
    port = portOf(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a path with malformed percent-encoding answers 400 invalid_params', async () => {
    const res = await rawExchange(port, 'GET /v9/shipments/%zz HTTP/1.1\r\nHost: fulfil.test\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.headers['x-request-id']).toMatch(/.+/);
    expect(JSON.parse(res.body)).toEqual({
      errors: [{ code: 'invalid_params', message: 'path: not a valid URL (malformed percent-encoding)', field: 'path' }],
    });
  });

  it('a path parameter over the length limit answers 400 invalid_params', async () => {
    const res = await fetch(`${t.url}/v9/shipments/${'1'.repeat(200)}`, { method: 'PUT' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: [{ code: 'invalid_params', message: 'path: a path parameter is too long', field: 'path' }],
    });
  });

  it('a malformed request line answers 400 invalid_params and closes the connection', async () => {
    const res = await rawExchange(port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({ errors: [{ code: 'invalid_params', message: 'malformed HTTP request' }] });
  });

  it('headers over the size limit answer 431 with a contract body', async () => {
    const big = 'a'.repeat(20 * 1024);
    const res = await rawExchange(port, `GET /livez HTTP/1.1\r\nHost: fulfil.test\r\nX-Big: ${big}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({
      errors: [{ code: 'payload_too_large', message: 'request line and headers are larger than the server accepts' }],
    });
  });

  it('the service still serves ordinary requests after those', async () => {
    const res = await fetch(`${t.url}/livez`);
    expect(res.status).toBe(200);
  });
});

describe('a request arriving while the server shuts down', () => {
  let t: TestService | undefined;
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 503 unavailable in the contract shape, with connection: close', async () => {
    t = await startTestService({ roles: { api: true, worker: false } });
    const port = portOf(t.url);
    const socket = await connect(port);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));

    // A request in flight: headers sent, body held back. The server's "100 Continue" proves it has
    // the request, so the connection is busy and survives the closing of idle ones.
    socket.write(
      'POST /nope HTTP/1.1\r\nHost: fulfil.test\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n',
    );
    await until(() => received.includes('100 Continue'));
    received = '';

    const stopping = t.service.stop();
    // The listener closes after the preClose hooks ran: once new connections are refused, the
    // server is closing and the shutdown gate is up.
    await until(async () => !(await accepts(port)));

    // Finish the first request and pipeline a second one behind it on the same connection.
    socket.write('{}GET /livez HTTP/1.1\r\nHost: fulfil.test\r\n\r\n');
    await closed;
    await stopping;

    const [first, second] = parseResponses(received);
    // The first request had been taken before the shutdown began: it is answered as usual.
    expect(first!.status).toBe(404);
    expect(JSON.parse(first!.body)).toEqual({ errors: [{ code: 'not_found', message: 'no route for POST /nope' }] });
    expect(second!.status).toBe(503);
    expect(second!.headers['content-type']).toBe(JSON_TYPE);
    expect(second!.headers.connection).toBe('close');
    expect(JSON.parse(second!.body)).toEqual({
      errors: [{ code: 'unavailable', message: 'the server is shutting down; the request was not taken, nothing changed' }],
    });
  });
});

async function accepts(port: number): Promise<boolean> {
  try {
    (await connect(port)).destroy();
    return true;
  } catch {
    return false;
  }
}

/** Polls a condition (no clock in the assertion): fails after many tries rather than hanging. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met');
}
