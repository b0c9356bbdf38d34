import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { OperatorError } from '../operator-error.ts';
import { redisServerBinary, startPrivateRedis, type PrivateRedis } from './private-server.ts';

export const DEFAULT_REDIS = { host: '127.0.0.1', port: 6379 };

export const NO_REDIS_MESSAGE =
  'fulfil needs Redis: set REDIS_URL=redis://host:port, run one on 127.0.0.1:6379, ' +
  'or install redis-server (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) ' +
  'so fulfil can start a private one.';

export class NoRedisError extends OperatorError {
  constructor() {
    super(NO_REDIS_MESSAGE);
    this.name = 'NoRedisError';
  }
}

/** Whether something answers PING like Redis at host:port within the timeout. */
export function redisAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG') || d.toString().startsWith('-NOAUTH')));
  });
}

export interface ResolvedRedis {
  url: string;
  source: 'REDIS_URL' | 'local' | 'private' | 'running private';
  private?: PrivateRedis;
}

/** REDIS_URL if set; else the running private Redis of DATA_DIR; else a Redis on 127.0.0.1:6379; else a new private redis-server; else NoRedisError. */
export async function resolveRedis(opts: {
  redisUrl?: string | undefined;
  dataDir: string;
  probeLocal?: boolean;
  binary?: string | undefined;
}): Promise<ResolvedRedis> {
  if (opts.redisUrl) return { url: opts.redisUrl, source: 'REDIS_URL' };
  // The private Redis a running service of this DATA_DIR started holds its queues: the CLI must
  // reach that one (with its password), even when another Redis answers on 6379.
  const running = runningPrivateUrl(opts.dataDir);
  if (running) {
    const u = new URL(running);
    if (await redisAnswers(u.hostname, Number(u.port))) return { url: running, source: 'running private' };
  }
  if ((opts.probeLocal ?? true) && (await redisAnswers(DEFAULT_REDIS.host, DEFAULT_REDIS.port))) {
    return { url: `redis://${DEFAULT_REDIS.host}:${DEFAULT_REDIS.port}`, source: 'local' };
  }
  const binary = 'binary' in opts ? opts.binary : redisServerBinary();
  if (!binary) throw new NoRedisError();
  const server = await startPrivateRedis(path.join(opts.dataDir, 'redis'), binary);
  return { url: server.url, source: 'private', private: server };
}

/** The URL a private redis-server of a running service left in DATA_DIR, if any. */
export function runningPrivateUrl(dataDir: string): string | undefined {
  try {
    return readFileSync(path.join(dataDir, 'redis', 'url'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
