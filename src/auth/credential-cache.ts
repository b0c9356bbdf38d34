import type { Database } from '../db/client.ts';
import type { CredentialRow } from '../db/sql/find-credential.ts';

/** Notified by a trigger (drizzle/0006_credential_notify.sql) with the token of every credential updated or deleted. */
export const CREDENTIAL_CHANNEL = 'fulfil_credentials';

/** A credential as authentication needs it: the row, and its secret already opened (or why not). */
export interface CachedCredential {
  row: CredentialRow;
  secret: string | undefined;
}

/**
 * Credentials kept in this process, so that an authenticated request costs no Postgres round trip
 * and no decryption. A change drops the entry at once: every update or delete of a credential
 * notifies its token (LISTEN/NOTIFY), and the whole cache is dropped each time the listening
 * connection (re)connects, since notifications sent while it was away are lost. Entries also
 * expire after `ttlMs` (under a second), which bounds how long a revocation can go unseen should a
 * notification be lost without the connection noticing. Nothing is cached until the first LISTEN
 * holds, and an entry read before a notification arrived is not stored (its read may predate it).
 */
export class CredentialCache {
  private readonly entries = new Map<string, CachedCredential & { at: number }>();
  private listening = false;
  /** Moves on every notification: a read that began before one is not cached. */
  private generation = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly opts: { ttlMs: number; maxEntries: number }) {}

  async start(database: Database): Promise<void> {
    this.unlisten = await database.listen(
      CREDENTIAL_CHANNEL,
      (token) => {
        this.generation++;
        if (token) this.entries.delete(token);
        else this.entries.clear();
      },
      () => {
        this.generation++;
        this.entries.clear();
        this.listening = true;
      },
    );
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.entries.clear();
    await this.unlisten?.();
  }

  /** What to hand back to `set` after reading from Postgres. */
  mark(): number {
    return this.generation;
  }

  get(token: string, now = performance.now()): CachedCredential | undefined {
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    if (now - hit.at < this.opts.ttlMs) return hit;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, value: CachedCredential, mark: number, now = performance.now()): void {
    if (!this.listening || mark !== this.generation) return;
    // Only stored credentials are ever cached, so this bound is about many real tokens, not guesses.
    if (this.entries.size >= this.opts.maxEntries) this.entries.clear();
    this.entries.set(token, { ...value, at: now });
  }
}
