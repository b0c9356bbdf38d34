import net from 'node:net';

/**
 * A loopback TCP proxy whose link can be cut and restored: "Postgres is down" for the process
 * behind it, without stopping the machine's Postgres.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    /** Stops listening and drops every link: new connections are refused, as with a stopped server. */
    cut() {
      server.close();
      for (const s of sockets) s.destroy();
    },
    restore: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}

/** A proxy in front of the Postgres of a database URL, and the same URL going through it. */
export async function proxiedDatabaseUrl(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const via = new URL(databaseUrl);
  via.port = String(proxy.port);
  return { proxy, url: via.toString() };
}
