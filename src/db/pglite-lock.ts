import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { OperatorError } from '../operator-error.ts';
import { isProcessAlive } from '../process-alive.ts';

export class EmbeddedDatabaseBusy extends OperatorError {
  constructor(dir: string, pid: number) {
    super(
      `the embedded database in ${dir} is in use by process ${pid} (a running fulfil); PGlite serves one process at a time. ` +
        // Said to `fulfil start` (the CLI's commands borrow the running service's database instead),
        // so the advice is never the command just typed: seeding goes through the running service.
        'To load a fixture into the running service, run `fulfil seed <file>` in another shell; ' +
        'to start this one instead, stop that process first, or set DATABASE_URL to use PostgreSQL.',
    );
    this.name = 'EmbeddedDatabaseBusy';
  }
}

function holderOf(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claims a PGlite directory for this process: two processes writing one PGlite directory
 * corrupt it, and the second would not see the first one's data anyway. The lock file is
 * created exclusively, so of two processes starting together one wins; a lock left by a process
 * that died is removed and claimed again the same way.
 */
export function lockEmbeddedDatabase(dir: string): () => void {
  const file = `${dir}.lock`;
  const release = () => {
    if (holderOf(file) === process.pid) rmSync(file, { force: true });
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(file);
    if (holder === process.pid) return release;
    if (holder && isProcessAlive(holder)) throw new EmbeddedDatabaseBusy(dir, holder);
    rmSync(file, { force: true }); // stale (its process is gone) or half-written: claim again
  }
  throw new EmbeddedDatabaseBusy(dir, holderOf(file) ?? 0);
}
