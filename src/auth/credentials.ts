import { randomBytes, randomInt } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { credentials, users } from '../db/schema.ts';
import { OperatorError } from '../operator-error.ts';
import { NoSandboxTwin, sandboxTwinOf } from '../sandbox/sandbox-twin.ts';
import type { SecretBox } from './secret-box.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function generateToken(): string {
  let token = '';
  for (let i = 0; i < 32; i++) token += ALNUM[randomInt(ALNUM.length)];
  return token;
}

/** 40 characters of base64 (30 random bytes): no spaces, as docs/API.md §Signature says. */
export function generateSecret(): string {
  return randomBytes(30).toString('base64');
}

export interface CreatedCredential {
  token: string;
  secret: string;
  kind: 'api' | 'user';
  mode: 'live' | 'test';
  /** The brokerage it acts for: the named one, or for a test credential its sandbox twin. */
  brokerageId: number;
  userId: number | null;
}

/** A credential that cannot be made as asked (no such user, another brokerage's user). */
export class CredentialError extends OperatorError {}

/** Creates a credential; the secret is returned this once and stored only encrypted. */
export async function createCredential(
  ex: Executor,
  box: SecretBox,
  opts: { brokerageId: number; userId?: number | undefined; mode?: 'live' | 'test' },
): Promise<CreatedCredential> {
  const mode = opts.mode ?? 'live';
  if (opts.userId !== undefined) {
    const [user] = await ex.select().from(users).where(eq(users.id, opts.userId));
    if (!user) throw new CredentialError(`user ${opts.userId} does not exist`);
    if (user.brokerageId !== opts.brokerageId) {
      throw new CredentialError(`user ${opts.userId} belongs to brokerage ${user.brokerageId}, not ${opts.brokerageId}`);
    }
  }
  let brokerageId = opts.brokerageId;
  if (mode === 'test') {
    try {
      brokerageId = await sandboxTwinOf(ex, opts.brokerageId);
    } catch (err) {
      throw err instanceof NoSandboxTwin ? new CredentialError(err.message) : err;
    }
  }
  const token = generateToken();
  const secret = generateSecret();
  const kind = opts.userId === undefined ? 'api' : 'user';
  await ex.insert(credentials).values({
    token,
    kind,
    mode,
    brokerageId,
    userId: opts.userId ?? null,
    secretCiphertext: box.seal(secret, token),
  });
  return { token, secret, kind, mode, brokerageId, userId: opts.userId ?? null };
}

export async function listCredentials(ex: Executor, brokerageId?: number) {
  return ex
    .select({
      token: credentials.token,
      kind: credentials.kind,
      mode: credentials.mode,
      brokerageId: credentials.brokerageId,
      userId: credentials.userId,
      createdAt: credentials.createdAt,
      revokedAt: credentials.revokedAt,
    })
    .from(credentials)
    .where(brokerageId === undefined ? undefined : eq(credentials.brokerageId, brokerageId))
    .orderBy(asc(credentials.brokerageId), asc(credentials.createdAt));
}

/** Returns whether a live credential was revoked (false: unknown or already revoked). */
export async function revokeCredential(ex: Executor, token: string): Promise<boolean> {
  const revoked = await ex
    .update(credentials)
    .set({ revokedAt: new Date() })
    .where(and(eq(credentials.token, token), isNull(credentials.revokedAt)))
    .returning({ token: credentials.token });
  return revoked.length > 0;
}
