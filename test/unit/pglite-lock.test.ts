import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedDatabaseBusy, lockEmbeddedDatabase } from '../../src/db/pglite-lock.ts';

describe('embedded database lock', () => {
  const dir = () => path.join(mkdtempSync(path.join(tmpdir(), 'fulfil-lock-')), 'pglite');

  it('is taken once, refused to a live other process, released on close', async () => {
    const d = dir();
    const release = lockEmbeddedDatabase(d);
    expect(readFileSync(`${d}.lock`, 'utf8').trim()).toBe(String(process.pid));
    // A live process that is not us holds it:
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      release();
      expect(existsSync(`${d}.lock`)).toBe(false);
      writeFileSync(`${d}.lock`, `${sleeper.pid}\n`);
      expect(() => lockEmbeddedDatabase(d)).toThrow(EmbeddedDatabaseBusy);
      expect(() => lockEmbeddedDatabase(d)).toThrow(new RegExp(`in use by process ${sleeper.pid}`));
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((r) => sleeper.once('exit', r));
    }
    // ...and once that process is gone, the lock is stale and claimed again.
    const again = lockEmbeddedDatabase(d);
    expect(readFileSync(`${d}.lock`, 'utf8').trim()).toBe(String(process.pid));
    again();
  });
});
