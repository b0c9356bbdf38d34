import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP receiver (protobuf or JSON) that takes every export and drops it: the traced service pays for
 * making, batching and sending its spans, as it would to a real collector on the same host.
 */
export async function startOtlpSink(): Promise<{ url: string; bytes: () => Map<string, number>; close: () => Promise<void> }> {
  const bytes = new Map<string, number>(); // by content type
  const server = http.createServer((req, res) => {
    const type = req.headers['content-type'] ?? '-';
    req.on('data', (d: Buffer) => bytes.set(type, (bytes.get(type) ?? 0) + d.length));
    // The answer in the protocol asked in: an empty message for protobuf, {} for JSON.
    const protobuf = req.headers['content-type'] === 'application/x-protobuf';
    req.on('end', () =>
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end(protobuf ? '' : '{}'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
