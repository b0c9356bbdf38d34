import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 8080, DATA_DIR: '.data', LOG_LEVEL: 'info', QUEUE_PREFIX: 'fulfil' });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '  ' }).DATABASE_URL).toBeUndefined();
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['QUEUE_PREFIX', 'a:b'],
  ])('names %s when it is invalid (%s)', (name, value) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(problems[0]).toContain(JSON.stringify(value));
  });

  it.each([
    ['DATABASE_URL', 'mysql://admin:hunter2pw@db.internal/fulfil', /got a mysql:\/\/ URL; value not shown/, ['hunter2pw', 'db.internal']],
    ['REDIS_URL', 'localhost:6379?password=s3cr3t', /got 30 characters; value not shown/, ['s3cr3t', 'localhost']],
    ['FULFIL_SECRET_KEY', 'not-a-key-but-a-secret', /got 22 characters; value not shown/, ['not-a-key-but-a-secret', 'secret']],
  ])('names %s and what is wrong with it, never its value', (name, value, said, secrets) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect(message).toMatch(new RegExp(`${name}: must be`));
    expect(message).toMatch(said);
    for (const part of secrets) expect(message).not.toContain(part);
  });

  it('accepts a 32-byte key as hex or base64', () => {
    expect(loadConfig({ FULFIL_SECRET_KEY: 'ab'.repeat(32) }).FULFIL_SECRET_KEY).toBe('ab'.repeat(32));
    const b64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ FULFIL_SECRET_KEY: b64 }).FULFIL_SECRET_KEY).toBe(b64);
  });
});

describe('timeouts and PUBLIC_HOST', () => {
  it('has a bound for every wait by default', () => {
    expect(loadConfig({})).toMatchObject({
      HTTP_REQUEST_TIMEOUT_MS: 30_000,
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_HANDLER_TIMEOUT_MS: 25_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 65_000,
      HTTP_CONNECTION_TIMEOUT_MS: 120_000,
      HTTP_MAX_CONNECTIONS: 1_000,
      HTTP_MAX_REQUESTS_PER_SOCKET: 1_000,
      DATABASE_CONNECT_TIMEOUT_MS: 5_000,
      DATABASE_STATEMENT_TIMEOUT_MS: 15_000,
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: 15_000,
      DATABASE_IDLE_TIMEOUT_MS: 60_000,
      DATABASE_POOL_SIZE: 10,
    });
  });

  it.each([
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_HANDLER_TIMEOUT_MS: '5000' }, 'HTTP_HANDLER_TIMEOUT_MS'],
    [{ DATABASE_CONNECT_TIMEOUT_MS: 'soon' }, 'DATABASE_CONNECT_TIMEOUT_MS'],
    [{ HTTP_MAX_CONNECTIONS: '0' }, 'HTTP_MAX_CONNECTIONS'],
  ])('refuses inconsistent or invalid timeouts (%o)', (env, name) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid configuration:\\n  ${name}:`));
  });

  it('reads PUBLIC_HOST as a comma-separated list', () => {
    expect(loadConfig({ PUBLIC_HOST: 'api.example.com, api-eu.example.com:443 ,' }).PUBLIC_HOST).toEqual([
      'api.example.com',
      'api-eu.example.com:443',
    ]);
    expect(loadConfig({}).PUBLIC_HOST).toBeUndefined();
  });
});

describe('DELIVERY_CONFIRMATION_WINDOW', () => {
  it('is 72 hours unless set, a duration with a unit', () => {
    expect(loadConfig({}).DELIVERY_CONFIRMATION_WINDOW).toBe(72 * 3600_000);
    expect(loadConfig({ DELIVERY_CONFIRMATION_WINDOW: '90s' }).DELIVERY_CONFIRMATION_WINDOW).toBe(90_000);
    expect(() => loadConfig({ DELIVERY_CONFIRMATION_WINDOW: '72' })).toThrow(/DELIVERY_CONFIRMATION_WINDOW/);
  });
});

describe('DELIVERY_ISSUE_RESPONSE_WINDOW', () => {
  it('is a duration with a unit, read as milliseconds; 48 hours unless set', () => {
    expect(loadConfig({}).DELIVERY_ISSUE_RESPONSE_WINDOW).toBe(48 * 3600_000);
    expect(loadConfig({ DELIVERY_ISSUE_RESPONSE_WINDOW: '90s' }).DELIVERY_ISSUE_RESPONSE_WINDOW).toBe(90_000);
    expect(loadConfig({ DELIVERY_ISSUE_RESPONSE_WINDOW: '30m' }).DELIVERY_ISSUE_RESPONSE_WINDOW).toBe(1_800_000);
    expect(loadConfig({ DELIVERY_ISSUE_RESPONSE_WINDOW: '2d' }).DELIVERY_ISSUE_RESPONSE_WINDOW).toBe(2 * 86_400_000);
  });

  it.each(['48', 'h', '1.5h', '-1h', '500ms', '31d', 'forever'])('refuses %s', (value) => {
    expect(() => loadConfig({ DELIVERY_ISSUE_RESPONSE_WINDOW: value })).toThrow(/DELIVERY_ISSUE_RESPONSE_WINDOW.*duration such as 48h/);
  });
});
