import { createServer, type Server } from 'node:http';
import type { Logger } from './logger.ts';

export interface WorkerHealth {
  port: number;
  close(): Promise<void>;
}

/**
 * GET /livez for a worker process (which has no HTTP ingress), for container health checks:
 * 200 while the process serves, 503 once it is stopping. It says nothing about Redis or Postgres
 * on purpose: a worker waiting out an outage is alive, and restarting it would not help.
 */
export async function startWorkerHealth(opts: { port: number; host: string; log: Logger }): Promise<WorkerHealth> {
  let stopping = false;
  const server: Server = createServer((req, res) => {
    const live = req.method === 'GET' && req.url?.split('?')[0] === '/livez';
    res.statusCode = !live ? 404 : stopping ? 503 : 200;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(!live ? { status: 'not found' } : { status: stopping ? 'stopping' : 'ok' }));
  });
  server.requestTimeout = 5_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  opts.log.info({ port }, 'worker /livez listening');
  return {
    port,
    close: () => {
      stopping = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}
