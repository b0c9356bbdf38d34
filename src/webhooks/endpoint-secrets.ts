import type { SecretBox } from '../auth/secret-box.ts';

/** Associated data of an endpoint's sealed secrets: a ciphertext moved to another endpoint does not open. */
export function secretAad(endpointId: number): string {
  return `webhook-endpoint:${endpointId}`;
}

export interface SealedSecrets {
  secret_ciphertext: string;
  /** Only while its grace period lasts (the claim query leaves it out afterwards). */
  previous_secret_ciphertext: string | null;
}

/** Opened secrets kept per endpoint; more endpoints than this and the cache starts over. */
const MAX_CACHED = 10_000;

/**
 * The secrets that sign now: the current one, and the previous one during a rotation's grace
 * period. Every send needs them, so they are opened once per endpoint and kept, keyed by the
 * ciphertexts the claim read: a rotation, or the grace period ending, changes that key and the
 * secrets are opened afresh; nothing outlives the row it came from.
 */
export class SigningSecrets {
  private readonly opened = new Map<number, { key: string; secrets: string[] }>();

  constructor(private readonly box: SecretBox) {}

  of(endpointId: number, row: SealedSecrets): string[] {
    const key = `${row.secret_ciphertext}|${row.previous_secret_ciphertext ?? ''}`;
    const hit = this.opened.get(endpointId);
    if (hit?.key === key) return hit.secrets;
    const secrets = [this.box.open(row.secret_ciphertext, secretAad(endpointId))];
    if (row.previous_secret_ciphertext) secrets.push(this.box.open(row.previous_secret_ciphertext, secretAad(endpointId)));
    if (this.opened.size >= MAX_CACHED) this.opened.clear();
    this.opened.set(endpointId, { key, secrets });
    return secrets;
  }
}
