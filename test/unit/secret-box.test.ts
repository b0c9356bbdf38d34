import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox, loadSecretKey } from '../../src/auth/secret-box.ts';

const box = SecretBox.fromKey('11'.repeat(32));

describe('SecretBox', () => {
  it('round-trips a secret and never stores it in clear', () => {
    const sealed = box.seal('s3cret-value', 'TOKEN');
    expect(sealed).not.toContain('s3cret-value');
    expect(box.open(sealed, 'TOKEN')).toBe('s3cret-value');
  });

  it('uses a fresh nonce each time', () => {
    expect(box.seal('x', 't')).not.toBe(box.seal('x', 't'));
  });

  it('refuses a ciphertext moved to another token, altered, or opened with another key', () => {
    const sealed = box.seal('secret', 'A');
    expect(() => box.open(sealed, 'B')).toThrow();
    const parts = sealed.split(':');
    parts[3] = Buffer.from('tampered!').toString('base64');
    expect(() => box.open(parts.join(':'), 'A')).toThrow();
    expect(() => SecretBox.fromKey('22'.repeat(32)).open(sealed, 'A')).toThrow();
  });

  it('generates a development key once, kept private in the data dir', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-key-'));
    const first = loadSecretKey({ dataDir: dir, production: false });
    expect(loadSecretKey({ dataDir: dir, production: false })).toBe(first);
    expect(readFileSync(path.join(dir, 'secret.key'), 'utf8').trim()).toBe(first);
    expect(statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(() => loadSecretKey({ dataDir: dir, production: true })).toThrow(/FULFIL_SECRET_KEY/);
  });
});
