/**
 * REDIS_URL names either one Redis (`redis://`, `rediss://`) or a Redis Cluster by some of its
 * nodes (`redis+cluster://[user:password@]host:port,host:port,…`, `rediss+cluster://` for TLS);
 * ioredis finds the other nodes and the slot map from the seeds.
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: Array<{ host: string; port: number }>; username?: string; password?: string; tls: boolean; db?: number };

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\//i;

export function isClusterUrl(url: string): boolean {
  return CLUSTER_SCHEME.test(url);
}

export function parseRedisUrl(url: string): RedisTarget {
  const scheme = CLUSTER_SCHEME.exec(url);
  if (!scheme) return { kind: 'single', url };
  let rest = url.slice(scheme[0].length);
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query);
  rest = rest.replace(/\/.*$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const userinfo = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = userinfo.indexOf(':');
    username = decodeURIComponent(colon >= 0 ? userinfo.slice(0, colon) : userinfo) || undefined;
    password = colon >= 0 ? decodeURIComponent(userinfo.slice(colon + 1)) || undefined : undefined;
  }
  const nodes = rest.split(',').map((hostPort) => {
    const m = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(hostPort.trim());
    if (!m) throw new Error(`REDIS_URL: "${hostPort}" is not host:port`);
    const port = m[2] === undefined ? 6379 : Number(m[2]);
    if (port < 1 || port > 65535) throw new Error(`REDIS_URL: port of "${hostPort}" out of range`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
  return {
    kind: 'cluster',
    nodes,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls: scheme[1]!.toLowerCase() === 'rediss',
  };
}

/** Where a URL points, for logs: never its password. */
export function redisUrlForLog(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * Redis Cluster keeps a multi-key script's keys on one node only if they hash to one slot, and
 * BullMQ's scripts touch many keys of a queue: a `{…}` hash tag in the prefix puts every key of
 * every queue in one slot. A prefix that has none is wrapped in braces on a cluster.
 */
export function clusterSafePrefix(prefix: string, onCluster: boolean): string {
  if (!onCluster || /\{[^{}]+\}/.test(prefix)) return prefix;
  return `{${prefix}}`;
}
