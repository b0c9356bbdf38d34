import net from 'node:net';

/**
 * A loopback TCP proxy whose link can be cut and restored: "Postgres is down" for the process
 * behind it, without stopping the machine's Postgres. It can also stall a link mid-message, or
 * lose replies: once a client sends bytes containing a marker, everything the server sends back
 * on that link is dropped, so the server acts on the request while the client never hears of it.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  // Links told to stall: they pass half of the client's next write upstream, then nothing more.
  const stalling = new Map<net.Socket, { halfSent: boolean }>();
  const links = new Set<net.Socket>();
  let marker: Buffer | undefined;
  let sawMarker: (() => void) | undefined;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    let deaf = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    links.add(client);
    client.on('close', () => (links.delete(client), stalling.delete(client)));
    forward(client, upstream, (chunk) => {
      const stall = stalling.get(client);
      if (stall) {
        if (!stall.halfSent) {
          stall.halfSent = true;
          upstream.write(chunk.subarray(0, Math.ceil(chunk.length / 2)));
        }
        return false;
      }
      if (marker && chunk.includes(marker)) {
        deaf = true;
        marker = undefined;
        sawMarker?.();
      }
      return true;
    });
    forward(upstream, client, () => !deaf);
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
    /**
     * Every open link sends half of its next write and then stops passing the client's bytes,
     * while staying open: the server waits on the client in the middle of a message, and the
     * client waits for an answer that cannot come. Links opened later pass everything.
     */
    stall() {
      for (const c of links) stalling.set(c, { halfSent: false });
    },
    /**
     * From the next client write containing `text` on, that link gets no more replies (the
     * request itself is delivered). Resolves once such a write went through.
     */
    loseRepliesAfter(text: string): Promise<void> {
      marker = Buffer.from(text);
      return new Promise<void>((resolve) => (sawMarker = resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}

/** Copies `from` to `to` while `pass` says so, with backpressure. */
function forward(from: net.Socket, to: net.Socket, pass: (chunk: Buffer) => boolean) {
  from.on('data', (chunk: Buffer) => {
    if (!pass(chunk) || to.destroyed) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
}

/** A proxy in front of the Postgres of a database URL, and the same URL going through it. */
export async function proxiedDatabaseUrl(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const via = new URL(databaseUrl);
  via.port = String(proxy.port);
  return { proxy, url: via.toString() };
}
