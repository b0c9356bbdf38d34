import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { SqlRunner } from '../db/client.ts';
import { findCredential } from '../db/sql/find-credential.ts';
import type { CachedCredential, CredentialCache } from './credential-cache.ts';
import { Unauthorized } from '@fulfil/contract';
import type { RateLimiter } from './rate-limit.ts';
import type { SecretBox } from './secret-box.ts';
import type { Caller } from './caller.ts';
import { verifySignature } from './signer.ts';

export const MISSING_CREDENTIALS = 'missing credentials';
export const INVALID_CREDENTIALS = 'invalid credentials';

const TOKEN_SHAPE = /^[A-Za-z0-9]{32}$/;

/** What authentication needs: the credential store, the key that opens secrets, the limits. */
export interface AuthDeps {
  database: SqlRunner;
  secretBox: SecretBox;
  config: Pick<Config, 'PUBLIC_HOST' | 'SANDBOX'>;
  rateLimiter?: RateLimiter | undefined;
  /** Credentials kept in memory and dropped on change (credential-cache.ts); without it, read each time. */
  credentialCache?: CredentialCache | undefined;
}

/**
 * Authenticates every request of the scope (docs/API.md §Signature). It runs at preValidation because the
 * signature covers the raw body, which is only read by then. The credential comes from the
 * process's cache when it holds it (dropped at once when the credential changes, so a revocation
 * holds within a second on every process), else from Postgres (a primary-key lookup).
 */
export function installAuth(v9: FastifyInstance, deps: AuthDeps): void {
  v9.addHook('preValidation', async (request) => {
    const limiter = deps.rateLimiter;
    // Both limits are counted in the process (rate-limit.ts): checking the address before the
    // credential costs nothing, and a blocked guesser never reaches Postgres.
    await limiter?.checkAuthFailures(request.ip);
    try {
      request.caller = await authenticate(request, deps);
    } catch (err) {
      if (err instanceof Unauthorized) await limiter?.recordAuthFailure(request.ip);
      throw err;
    }
    await limiter?.check(request.caller.token);
  });
}

/**
 * Who an upload is from, told by its headers alone, before a byte of its body is read: both
 * headers present and the token naming an active credential. An upload slot is then taken in that
 * credential's name; the signature over the body is still checked (installAuth) once it is read.
 * A caller refused here counts as a failed authentication, as at installAuth.
 */
export async function admitByHeaders(request: FastifyRequest, deps: AuthDeps): Promise<string> {
  const limiter = deps.rateLimiter;
  await limiter?.checkAuthFailures(request.ip);
  try {
    return (await activeCredential(request, deps)).token;
  } catch (err) {
    if (err instanceof Unauthorized) await limiter?.recordAuthFailure(request.ip);
    throw err;
  }
}

/** The credential the headers name, active and with its secret opened; Unauthorized otherwise. */
async function activeCredential(request: FastifyRequest, deps: AuthDeps) {
  const token = singleHeader(request, 'x-token');
  const signature = singleHeader(request, 'x-signature');
  // One header without the other (one Authorize box of /docs filled): say which one is missing.
  if (!token && !signature) throw new Unauthorized(MISSING_CREDENTIALS);
  if (!token) throw new Unauthorized(`${MISSING_CREDENTIALS}: no X-Token header (send X-Token and X-Signature)`);
  if (!signature) throw new Unauthorized(`${MISSING_CREDENTIALS}: no X-Signature header (send X-Token and X-Signature)`);

  // The client hears only "invalid credentials"; the reason goes to the log for operators.
  // Neither the signature nor the secret is ever logged.
  const refuse = (reason: string, level: 'info' | 'warn' = 'info') => {
    request.log[level]({ reason, token: token.slice(0, 8) }, 'authentication refused');
    return new Unauthorized(INVALID_CREDENTIALS);
  };
  if (!TOKEN_SHAPE.test(token)) throw refuse('malformed token');

  const credential = deps.credentialCache?.get(token) ?? (await readCredential(token, deps));
  if (!credential) throw refuse('unknown token');
  const { row, secret } = credential;
  if (row.revokedAt) throw refuse('revoked credential');
  if (secret === undefined) throw refuse('stored secret cannot be decrypted (FULFIL_SECRET_KEY changed?)', 'warn');
  // Said as it is: the credential is good, this deployment takes no test traffic.
  if (row.mode === 'test' && !deps.config.SANDBOX) {
    throw new Unauthorized('test credentials are not accepted by this server (test mode is turned off: SANDBOX=false)');
  }
  return { token, signature, row, secret, refuse };
}

async function authenticate(request: FastifyRequest, deps: AuthDeps): Promise<Caller> {
  const { token, signature, row, secret, refuse } = await activeCredential(request, deps);
  const signed = verifySignature(
    secret,
    { method: request.method, host: request.host, url: request.url, body: request.rawBody, publicHosts: deps.config.PUBLIC_HOST },
    signature,
  );
  if (!signed) throw refuse('signature mismatch');
  return { token, kind: row.kind, livemode: row.mode !== 'test', brokerageId: row.brokerageId, userId: row.userId };
}

/** The credential from Postgres, its secret opened once; kept in the cache when there is one. */
async function readCredential(token: string, deps: AuthDeps): Promise<CachedCredential | undefined> {
  const mark = deps.credentialCache?.mark();
  const row = await findCredential(deps.database, token);
  if (!row) return undefined;
  let secret: string | undefined;
  try {
    secret = deps.secretBox.open(row.secretCiphertext, token);
  } catch {
    secret = undefined;
  }
  const credential = { row, secret };
  if (mark !== undefined) deps.credentialCache!.set(token, credential, mark);
  return credential;
}

/** A header sent twice arrives joined by ", ", which no valid token or signature contains. */
function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
