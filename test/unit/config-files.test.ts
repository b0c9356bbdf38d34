import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-config-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function secretFile(name: string, content: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('loadConfig accepted it');
}

describe('secrets by reference (NAME_FILE)', () => {
  it('reads each secret variable from the file its _FILE names, without the trailing newline', () => {
    const key = 'ab'.repeat(32);
    const c = loadConfig({
      FULFIL_SECRET_KEY_FILE: secretFile('key', `${key}\n`),
      OPS_TOKEN_FILE: secretFile('ops', 'a-long-ops-token\n'),
      DATABASE_URL_FILE: secretFile('db', 'postgres://fulfil:pw@db:5432/fulfil'),
      REDIS_URL_FILE: secretFile('redis', 'redis://:pw@redis:6379\r\n'),
    });
    expect(c.FULFIL_SECRET_KEY).toBe(key);
    expect(c.OPS_TOKEN).toBe('a-long-ops-token');
    expect(c.DATABASE_URL).toBe('postgres://fulfil:pw@db:5432/fulfil');
    expect(c.REDIS_URL).toBe('redis://:pw@redis:6379');
  });

  it('validates a value read from a file like one set directly', () => {
    expect(problemsOf({ FULFIL_SECRET_KEY_FILE: secretFile('short', 'short\n') })[0]).toMatch(/^FULFIL_SECRET_KEY: must be 32 bytes/);
  });

  it('refuses a variable given both ways, and a file it cannot read, naming the variable', () => {
    expect(problemsOf({ OPS_TOKEN: 'x', OPS_TOKEN_FILE: secretFile('ops2', 'y') })).toEqual([
      'OPS_TOKEN_FILE: OPS_TOKEN is set too; give one of them',
    ]);
    expect(problemsOf({ OPS_TOKEN_FILE: path.join(dir, 'missing') })).toEqual([
      `OPS_TOKEN_FILE: cannot read ${path.join(dir, 'missing')} (ENOENT)`,
    ]);
  });

  it('ignores _FILE for variables that are not secrets, and an empty _FILE', () => {
    expect(loadConfig({ PORT_FILE: secretFile('port', '1234'), OPS_TOKEN_FILE: '' })).toMatchObject({ PORT: 8080 });
    expect(loadConfig({}).OPS_TOKEN).toBeUndefined();
  });
});
