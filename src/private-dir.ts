import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { OperatorError } from './operator-error.ts';

/**
 * DATA_DIR holds the embedded database (credential tokens, e-mail addresses, its WAL), the
 * private Redis's AOF (queued commands) and the generated secrets: no other local user may read
 * or write any of it. PGlite creates its files 0666 whatever the umask, so the directories are
 * what keeps others out (0700: nobody else can even look up a name in them); files are set to
 * 0600 on top, and both are repaired on directories that already exist.
 */
export class PrivateDirError extends OperatorError {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateDirError';
  }
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Files created by this process from now on are this user's only (redis-server inherits it). */
export function restrictUmask(): void {
  try {
    process.umask(0o077);
  } catch {
    // A worker thread cannot set the umask; the modes below still hold.
  }
}

/**
 * Creates `dir` (0700) if missing, then makes it and, with `recursive`, everything under it
 * private: directories 0700, files 0600. An entry this user cannot change (owned by someone
 * else) stops the start with a message that says which one and what to do.
 */
export function makePrivateDir(dir: string, opts: { recursive?: boolean } = {}): void {
  const root = path.resolve(dir);
  mkdirSync(root, { recursive: true, mode: DIR_MODE });
  // A shared directory such as /tmp (world-writable, sticky) is not one to close to everyone.
  if ((lstatSync(root).mode & 0o1002) === 0o1002) {
    throw new PrivateDirError(`DATA_DIR: ${root} is a shared directory (like /tmp); give fulfil a directory of its own`);
  }
  const repair = (p: string, recurse: boolean) => {
    const st = makePrivateEntry(p);
    if (recurse && st?.isDirectory()) for (const name of readdirSync(p)) repair(path.join(p, name), true);
  };
  repair(root, opts.recursive ?? false);
}

/** An existing file of DATA_DIR (a generated secret) made 0600, with makePrivateDir's message when it cannot be. */
export function makePrivateFile(file: string): void {
  makePrivateEntry(file);
}

function makePrivateEntry(p: string) {
  const st = lstatSync(p);
  if (st.isSymbolicLink()) return undefined; // its target is not ours to change; nothing in DATA_DIR makes links
  const mode = st.isDirectory() ? DIR_MODE : FILE_MODE;
  if ((st.mode & 0o777) !== mode) {
    try {
      chmodSync(p, mode);
    } catch (err) {
      throw notOurs(`make ${p} private (mode ${mode.toString(8)})`, err);
    }
  }
  return st;
}

/** The one message for an entry of DATA_DIR this user cannot use: which one, and what to do. */
export function notOurs(doing: string, err: unknown): PrivateDirError {
  return new PrivateDirError(
    `DATA_DIR: cannot ${doing}: ${(err as NodeJS.ErrnoException).code ?? err}. ` +
      'It must belong to the user that runs fulfil (chown -R it, or choose another DATA_DIR).',
  );
}
