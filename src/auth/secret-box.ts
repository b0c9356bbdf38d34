import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir, makePrivateFile, notOurs } from '../private-dir.ts';

/**
 * Credential secrets are kept with AES-256-GCM under FULFIL_SECRET_KEY: a stolen database alone
 * does not yield secrets, and the auth tag refuses a ciphertext altered or moved between rows
 * (the token is bound in as associated data).
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static fromKey(key: string | Buffer): SecretBox {
    const bytes = typeof key === 'string' ? decodeKey(key) : key;
    if (bytes.length !== 32) throw new Error('FULFIL_SECRET_KEY must be 32 bytes');
    return new SecretBox(bytes);
  }

  seal(plain: string, associated: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(associated));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  /**
   * A key of its own for `purpose`, derived from this one (HKDF-SHA256): every process of a
   * deployment derives the same, and nothing sealed here can be opened with it, nor the reverse.
   */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `fulfil ${purpose}`, 32));
  }

  open(sealed: string, associated: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(associated));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}

function decodeKey(key: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64');
}

/**
 * FULFIL_SECRET_KEY when set. Otherwise, outside production, a key generated once and kept in
 * DATA_DIR/secret.key (mode 600), so development needs no set-up and restarts keep credentials.
 */
export function loadSecretKey(opts: { configured?: string | undefined; dataDir: string; production: boolean }): string {
  if (opts.configured) return opts.configured;
  if (opts.production) throw new Error('FULFIL_SECRET_KEY: required when NODE_ENV=production (32 bytes, hex or base64)');
  const file = path.join(opts.dataDir, 'secret.key');
  makePrivateDir(opts.dataDir);
  if (existsSync(file)) {
    makePrivateFile(file); // a key written by an older version, or copied in with looser modes
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw notOurs(`read ${file}`, err);
    }
  }
  const key = randomBytes(32).toString('hex');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
