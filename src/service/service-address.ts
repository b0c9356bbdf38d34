import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../private-dir.ts';
import type { ServiceQueuesAddress } from '../ops/queue-address.ts';

export { QUEUE_ADDRESS_PATH, type ServiceQueuesAddress } from '../ops/queue-address.ts';

// Where a started service leaves its address, so that the CLI of the same checkout (the same
// DATA_DIR) calls it on whatever PORT it took, as the CLI finds the embedded database (D-134).
const FILE = 'service.json';

export interface Address {
  url: string;
  pid: number;
  queues?: ServiceQueuesAddress;
}

/** Leaves the API's address in DATA_DIR; answers how to take it away at stop (only if it is still this process's). */
export function leaveServiceAddress(dataDir: string, url: string, queues?: ServiceQueuesAddress): () => void {
  const file = path.join(dataDir, FILE);
  try {
    makePrivateDir(dataDir);
    writeFileSync(file, `${JSON.stringify({ url, pid: process.pid, ...(queues ? { queues } : {}) } satisfies Address)}\n`, { mode: 0o600 });
  } catch {
    return () => {}; // a read-only DATA_DIR: the CLI falls back to PORT, as before
  }
  return () => {
    if (readAddress(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** The address a running service of DATA_DIR left, if its process still runs. */
export function runningServiceUrl(dataDir: string): string | undefined {
  return runningService(dataDir)?.url;
}

/** What a running service of DATA_DIR left (address and queues), if its process still runs. */
export function runningService(dataDir: string): Address | undefined {
  const found = readAddress(path.join(dataDir, FILE));
  if (!found) return undefined;
  try {
    process.kill(found.pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user; anything else: it is gone and the file is stale.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return found;
}

function readAddress(file: string): Address | undefined {
  try {
    const a = JSON.parse(readFileSync(file, 'utf8')) as Partial<Address>;
    return typeof a.url === 'string' && Number.isInteger(a.pid) ? (a as Address) : undefined;
  } catch {
    return undefined;
  }
}
