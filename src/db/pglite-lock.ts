import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isProcessAlive } from '../process-alive.ts';

export class EmbeddedDatabaseBusy extends Error {
  constructor(dir: string, pid: number) {
    super(
      `the embedded database in ${dir} is in use by process ${pid} (a running fulfil); PGlite serves one process at a time. ` +
        'Stop it first, pass the file to `fulfil start --seed <file>`, or set DATABASE_URL to use PostgreSQL.',
    );
    this.name = 'EmbeddedDatabaseBusy';
  }
}

/**
 * Claims a PGlite directory for this process: two processes writing one PGlite directory
 * corrupt it, and the second would not see the first one's data anyway. A lock left by a
 * process that died is taken over.
 */
export function lockEmbeddedDatabase(dir: string): () => void {
  const file = `${dir}.lock`;
  let holder: number | undefined;
  try {
    holder = Number(readFileSync(file, 'utf8').trim());
  } catch {
    holder = undefined;
  }
  if (holder && holder !== process.pid && isProcessAlive(holder)) throw new EmbeddedDatabaseBusy(dir, holder);
  writeFileSync(file, `${process.pid}\n`);
  return () => {
    try {
      if (Number(readFileSync(file, 'utf8').trim()) === process.pid) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}
