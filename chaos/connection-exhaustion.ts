import http from 'node:http';
import net from 'node:net';
import { signRequest } from '../src/auth/signer.ts';

/**
 * Connection exhaustion: attackers hold idle keep-alive sockets, one client address with as many
 * as the whole cap and then many addresses filling it together; a victim on another address must
 * still get its signed request answered. Linux routes all of 127/8 to loopback, so the parties are
 * told apart by the source address their sockets bind.
 */
export interface ExhaustionFigures {
  /** Idle sockets the attackers opened (the server may have closed many of them since). */
  attackerSockets: number;
  /** The victim's answers: one after the single-address attack, one after the many-address one. */
  victimStatuses: Array<number | string>;
}

export const VICTIM_ADDRESS = '127.0.0.3';

/** A socket from `from` that sends one request, reads the answer and then sits idle (keep-alive). */
export function idleKeepAlive(port: number, from: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
    s.once('error', () => resolve(undefined));
    s.once('close', () => resolve(undefined));
    s.once('connect', () => s.write('GET /livez HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n\r\n'));
    s.once('data', () => resolve(s));
  });
}

/** Opens `count` idle keep-alive sockets from `from`, 50 at a time, into `held`. */
export async function openIdle(port: number, from: string, count: number, held: net.Socket[]): Promise<void> {
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => idleKeepAlive(port, from)));
    for (const s of batch) if (s) held.push(s);
  }
}

/** A signed GET /v9/credentials/current from `from`, on a new connection: its status and body, or the network error. */
export function signedCallFrom(
  baseUrl: string,
  from: string,
  cred: { token: string; secret: string },
): Promise<{ status: number; body: string } | { error: string }> {
  const url = new URL(baseUrl);
  const signed = signRequest({ secret: cred.secret, method: 'GET', host: url.hostname, path: '/v9/credentials/current' });
  return new Promise((resolve) => {
    const req = http.get(
      {
        host: url.hostname,
        port: url.port,
        path: signed.target,
        localAddress: from,
        agent: false,
        headers: { 'x-token': cred.token, 'x-signature': signed.signature },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', (err) => resolve({ error: err.message }));
  });
}

/** Both attacks against a service whose cap is `cap` connections; the sockets are closed afterwards. */
export async function runConnectionExhaustion(
  baseUrl: string,
  cred: { token: string; secret: string },
  cap: number,
): Promise<ExhaustionFigures> {
  const port = Number(new URL(baseUrl).port);
  const held: net.Socket[] = [];
  const statuses: Array<number | string> = [];
  let opened = 0;
  const answer = async () => {
    const res = await signedCallFrom(baseUrl, VICTIM_ADDRESS, cred);
    statuses.push('status' in res ? res.status : res.error);
  };
  try {
    await openIdle(port, '127.0.0.2', cap, held);
    opened += cap;
    await answer();
    held.splice(0).forEach((s) => s.destroy());
    const perAttacker = Math.ceil(cap / 10);
    for (let a = 4; a < 14; a++) await openIdle(port, `127.0.0.${a}`, perAttacker, held);
    opened += perAttacker * 10;
    await answer();
  } finally {
    held.forEach((s) => s.destroy());
  }
  return { attackerSockets: opened, victimStatuses: statuses };
}
