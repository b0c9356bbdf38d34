import net from 'node:net';

/**
 * Slow-loris clients: half send a request line and headers one byte at a time, half declare a
 * 60 KB body and send one byte per interval. The service must close every one of them within
 * its request timeout (plus Node's one-second check interval and a little slack).
 */
export interface SlowFigures {
  clients: number;
  closedInTime: number;
  stillOpen: number;
  maxCloseMs: number;
  limitMs: number;
}

export async function runSlowClients(baseUrl: string, clients: number, requestTimeoutMs: number): Promise<SlowFigures> {
  const { hostname, port } = new URL(baseUrl);
  const limitMs = requestTimeoutMs + 2_500;
  const started = Date.now();
  const closes = await Promise.all(
    Array.from(
      { length: clients },
      (_, i) =>
        new Promise<number>((resolve) => {
          const s = net.connect(Number(port), hostname);
          const head =
            'POST /v9/credentials/current/verify HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 60000\r\n\r\n';
          let sent = 0;
          let timer: NodeJS.Timeout | undefined;
          s.on('connect', () => {
            if (i % 2 === 0) s.write(`${head}{`);
            timer = setInterval(() => {
              if (!s.writable) return;
              s.write(i % 2 === 0 ? '"' : head[sent++ % head.length]!);
            }, 250);
          });
          s.on('error', () => {});
          s.on('data', () => {});
          s.on('close', () => {
            clearInterval(timer);
            resolve(Date.now() - started);
          });
          // the suite's own bound: a socket the server never closes counts as still open
          setTimeout(() => s.destroy(), limitMs * 3).unref();
        }),
    ),
  );
  const closedInTime = closes.filter((ms) => ms <= limitMs).length;
  return { clients, closedInTime, stillOpen: clients - closedInTime, maxCloseMs: Math.max(...closes), limitMs };
}
