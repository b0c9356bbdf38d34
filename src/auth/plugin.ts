import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { SqlRunner } from '../db/client.ts';
import { findCredential } from '../db/sql/find-credential.ts';
import { Unauthorized } from '../errors.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { SecretBox } from './secret-box.ts';
import type { Caller } from './caller.ts';
import { verifySignature } from './signer.ts';

export const MISSING_CREDENTIALS = 'missing credentials';
export const INVALID_CREDENTIALS = 'invalid credentials';

const TOKEN_SHAPE = /^[A-Za-z0-9]{32}$/;

/**
 * Authenticates every request of the scope (docs/API.md §Signature). It runs at preValidation because the
 * signature covers the raw body, which is only read by then. The credential is read from Postgres
 * on each request (a primary-key lookup) so a revocation holds at once on every process.
 */
/** What authentication needs: the credential store, the key that opens secrets, the limits. */
export interface AuthDeps {
  database: SqlRunner;
  secretBox: SecretBox;
  config: Pick<Config, 'PUBLIC_HOST'>;
  rateLimiter?: RateLimiter | undefined;
}

export function installAuth(v9: FastifyInstance, deps: AuthDeps): void {
  v9.addHook('preValidation', async (request) => {
    await deps.rateLimiter?.checkAuthFailures(request.ip);
    try {
      request.caller = await authenticate(request, deps);
    } catch (err) {
      if (err instanceof Unauthorized) await deps.rateLimiter?.recordAuthFailure(request.ip);
      throw err;
    }
    await deps.rateLimiter?.check(request.caller.token);
  });
}

async function authenticate(request: FastifyRequest, deps: AuthDeps): Promise<Caller> {
  const token = singleHeader(request, 'x-token');
  const signature = singleHeader(request, 'x-signature');
  if (!token || !signature) throw new Unauthorized(MISSING_CREDENTIALS);

  // The client hears only "invalid credentials"; the reason goes to the log for operators.
  // Neither the signature nor the secret is ever logged.
  const refuse = (reason: string, level: 'info' | 'warn' = 'info') => {
    request.log[level]({ reason, token: token.slice(0, 8) }, 'authentication refused');
    return new Unauthorized(INVALID_CREDENTIALS);
  };
  if (!TOKEN_SHAPE.test(token)) throw refuse('malformed token');

  const row = await findCredential(deps.database, token);
  if (!row) throw refuse('unknown token');
  if (row.revokedAt) throw refuse('revoked credential');

  let secret: string;
  try {
    secret = deps.secretBox.open(row.secretCiphertext, token);
  } catch {
    throw refuse('stored secret cannot be decrypted (FULFIL_SECRET_KEY changed?)', 'warn');
  }
  const signed = verifySignature(
    secret,
    { method: request.method, host: request.host, url: request.url, body: request.rawBody, publicHosts: deps.config.PUBLIC_HOST },
    signature,
  );
  if (!signed) throw refuse('signature mismatch');
  return { token, kind: row.kind, brokerageId: row.brokerageId, userId: row.userId };
}

/** A header sent twice arrives joined by ", ", which no valid token or signature contains. */
function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
