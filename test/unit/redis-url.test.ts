import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { clusterSafePrefix, parseRedisUrl, redisUrlForLog } from '@fulfil/client/transport';

describe('REDIS_URL', () => {
  it('names one Redis by redis:// or rediss://, unchanged', () => {
    expect(parseRedisUrl('redis://10.0.0.1:6380/2')).toEqual({ kind: 'single', url: 'redis://10.0.0.1:6380/2' });
  });

  it('names a cluster by its seed nodes, with credentials and TLS', () => {
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-c')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'redis-c', port: 6379 },
      ],
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://app:p%40ss@[::1]:7000,h:7001')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '::1', port: 7000 },
        { host: 'h', port: 7001 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
  });

  it('refuses a node that is not host:port', () => {
    expect(() => parseRedisUrl('redis+cluster://a:1,:2')).toThrow(/not host:port/);
    expect(() => parseRedisUrl('redis+cluster://a:99999')).toThrow(/out of range/);
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://a:1,b:c' })).toThrow(ConfigError);
  });

  it('never logs a password', () => {
    expect(redisUrlForLog('redis+cluster://app:secret@a:1,b:2')).toBe('redis+cluster://***@a:1,b:2');
  });

  it('puts every key in one hash slot on a cluster, and leaves a single Redis alone', () => {
    expect(clusterSafePrefix('fulfil', true)).toBe('{fulfil}');
    expect(clusterSafePrefix('{fulfil}', true)).toBe('{fulfil}');
    expect(clusterSafePrefix('fulfil', false)).toBe('fulfil');
    expect(loadConfig({ REDIS_URL: 'redis+cluster://a:1,b:2' }).QUEUE_PREFIX).toBe('{fulfil}');
    expect(loadConfig({ REDIS_URL: 'redis+cluster://a:1', QUEUE_PREFIX: 'shop{eu}' }).QUEUE_PREFIX).toBe('shop{eu}');
    expect(loadConfig({ REDIS_URL: 'redis://a:1' }).QUEUE_PREFIX).toBe('fulfil');
  });
});

describe('Postgres settings', () => {
  it('has a pool size and server-side timeouts by default, 0 turning a timeout off', () => {
    expect(loadConfig({})).toMatchObject({
      DATABASE_POOL_SIZE: 10,
      DATABASE_STATEMENT_TIMEOUT_MS: 15_000,
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: 15_000,
      RELAY_LEADER_CHECK_MS: 1_000,
    });
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).DATABASE_STATEMENT_TIMEOUT_MS).toBe(0);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_READ_URL: 'mysql://r' })).toThrow(/DATABASE_READ_URL/);
  });
});
