import type { SqlRunner } from '../client.ts';

export interface CredentialRow {
  kind: 'api' | 'user';
  mode: 'live' | 'test';
  brokerageId: number;
  userId: number | null;
  secretCiphertext: string;
  revokedAt: unknown;
}

// Read when the process's credential cache does not hold the token (src/auth/credential-cache.ts).
const FIND = `
select kind, mode, brokerage_id as "brokerageId", user_id as "userId", secret_ciphertext as "secretCiphertext",
  revoked_at as "revokedAt"
from credentials where token = $1`;

export async function findCredential(ex: SqlRunner, token: string): Promise<CredentialRow | undefined> {
  const [row] = await ex.rows<CredentialRow>(FIND, [token]);
  return row;
}
