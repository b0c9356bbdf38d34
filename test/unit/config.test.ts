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
