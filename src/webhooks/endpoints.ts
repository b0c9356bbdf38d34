import { randomBytes } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { SecretBox } from '../auth/secret-box.ts';
import { query, type Executor } from '../db/client.ts';
import { retryOnDeadlock } from '../db/sql-state.ts';
import { webhookEndpoints } from '../db/schema.ts';
import { AppError, InvalidParams, NotFound } from '@fulfil/contract';
import { DEVELOPMENT_SWITCH, urlProblem, type AddressPolicy } from './address-policy.ts';
import { secretAad } from './endpoint-secrets.ts';
import { answeredEventKinds, storedEventKinds, type createEndpointBody, type updateEndpointBody } from './endpoint-input.ts';
import { isRefusedAddress, vetAddresses, type Resolve } from './send.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface EndpointRules {
  policy: AddressPolicy;
  resolve: Resolve;
  /** Endpoints one brokerage may have (WEBHOOK_MAX_ENDPOINTS_PER_BROKERAGE); unset: no limit. */
  maxPerBrokerage?: number;
}

/** A brokerage that has all the webhook endpoints it may have asked for one more. */
export class EndpointLimitReached extends AppError {
  readonly code = 'limit_reached';
  readonly status = 409 as const;
  constructor(limit: number) {
    super(`this brokerage has ${limit} webhook endpoints, the most it may have; delete one first`);
  }
}

/**
 * `whsec_` and 32 random bytes in standard base64: Standard Webhooks' form, which its verifiers
 * take as is (D-085). Secrets made before were base64url; both sign the same way.
 */
function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * A brokerage's mode: an endpoint registered with a test credential belongs to the sandbox twin
 * (livemode false) and is owed that twin's events only, which are all test events.
 */
export async function brokerageLivemode(ex: Executor, brokerageId: number): Promise<boolean> {
  const [row] = await query<{ livemode: boolean }>(ex, sql`select livemode from brokerages where id = ${brokerageId}`);
  return row?.livemode ?? true;
}

/** The endpoint as the API shows it: never its secrets; livemode is its brokerage's. */
export function endpointJson(row: EndpointRow, livemode: boolean) {
  return {
    id: row.id,
    url: row.url,
    event_kinds: answeredEventKinds(row.eventKinds),
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    disabled_at: row.disabledAt?.toISOString() ?? null,
    failing_since: row.failingSince?.toISOString() ?? null,
    previous_secret_expires_at:
      row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date() ? row.previousSecretExpiresAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    livemode,
  };
}

/**
 * Refuses a URL that is malformed, not https (outside development's WEBHOOK_ALLOW_PRIVATE), or
 * whose host resolves to a loopback, private, link-local or reserved address. Deliveries check
 * the address again at each call: a name may resolve elsewhere later.
 */
export async function checkEndpointUrl(raw: string, rules: EndpointRules): Promise<string> {
  const problem = urlProblem(raw, rules.policy);
  if (problem) throw new InvalidParams(problem, 'url');
  const url = new URL(raw);
  try {
    await vetAddresses(url, rules);
  } catch (err) {
    if (isRefusedAddress(err)) throw new InvalidParams(`url: ${err.message}${rules.policy.allowPrivate ? '' : DEVELOPMENT_SWITCH}`, 'url');
    throw new InvalidParams(`url: cannot resolve ${url.hostname}`, 'url');
  }
  return url.toString();
}

export async function createEndpoint(
  ex: Executor,
  box: SecretBox,
  rules: EndpointRules,
  brokerageId: number,
  body: z.output<typeof createEndpointBody>,
) {
  const url = await checkEndpointUrl(body.url, rules);
  const secret = generateWebhookSecret();
  // The id seals the secret, so the row is written first with a placeholder, in one transaction.
  return ex.transaction(async (tx) => {
    if (rules.maxPerBrokerage !== undefined) await checkEndpointLimit(tx, brokerageId, rules.maxPerBrokerage);
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        brokerageId,
        url,
        eventKinds: storedEventKinds(body.event_kinds),
        enabled: body.enabled ?? true,
        disabledReason: body.enabled === false ? 'manual' : null,
        disabledAt: body.enabled === false ? new Date() : null,
        secretCiphertext: '',
      })
      .returning({ id: webhookEndpoints.id });
    const [sealed] = await tx
      .update(webhookEndpoints)
      .set({ secretCiphertext: box.seal(secret, secretAad(row!.id)) })
      .where(eq(webhookEndpoints.id, row!.id))
      .returning();
    return { ...endpointJson(sealed!, await brokerageLivemode(tx, brokerageId)), secret };
  });
}

/**
 * Refuses a brokerage's endpoint beyond the limit. Each endpoint of a brokerage is owed every event
 * of its orders, and delivery shares the call slots per brokerage (docs/WEBHOOKS.md), so the limit
 * bounds what one brokerage's receivers can cost. The brokerage's row is locked first (a lock that
 * leaves inserts referring to it alone), so two creations at once cannot both pass the count.
 */
async function checkEndpointLimit(tx: Executor, brokerageId: number, limit: number): Promise<void> {
  await query(tx, sql`select id from brokerages where id = ${brokerageId} for no key update`);
  const [row] = await query<{ n: number }>(tx, sql`select count(*)::int as n from webhook_endpoints where brokerage_id = ${brokerageId}`);
  if ((row?.n ?? 0) >= limit) throw new EndpointLimitReached(limit);
}

export async function listEndpoints(ex: Executor, brokerageId: number) {
  const rows = await ex
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.brokerageId, brokerageId))
    .orderBy(asc(webhookEndpoints.id));
  const livemode = await brokerageLivemode(ex, brokerageId);
  return { webhook_endpoints: rows.map((row) => endpointJson(row, livemode)) };
}

/** The caller's own endpoint; another brokerage's is "not found", so ids cannot be probed. */
export async function ownEndpoint(ex: Executor, brokerageId: number, id: number): Promise<EndpointRow> {
  const [row] = await ex
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.brokerageId, brokerageId)));
  if (!row) throw new NotFound(`webhook endpoint ${id} not found`);
  return row;
}

/**
 * Changes url, kinds or enabled. Enabling a disabled endpoint makes its undelivered events due at
 * once (it resumes from the first of each order); the caller queues them (resumeEndpoint).
 */
export async function updateEndpoint(
  ex: Executor,
  rules: EndpointRules,
  brokerageId: number,
  id: number,
  body: z.output<typeof updateEndpointBody>,
) {
  const current = await ownEndpoint(ex, brokerageId, id);
  const url = body.url === undefined ? undefined : await checkEndpointUrl(body.url, rules);
  const enabling = body.enabled === true && !current.enabled;
  const disabling = body.enabled === false && current.enabled;
  const [row] = await ex
    .update(webhookEndpoints)
    .set({
      ...(url !== undefined ? { url } : {}),
      ...(body.event_kinds ? { eventKinds: storedEventKinds(body.event_kinds) } : {}),
      ...(enabling ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null } : {}),
      ...(disabling ? { enabled: false, disabledReason: 'manual' as const, disabledAt: new Date() } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.brokerageId, brokerageId)))
    .returning();
  return { endpoint: endpointJson(row!, await brokerageLivemode(ex, brokerageId)), enabled: enabling };
}

/** Tries of a delete that Postgres aborted to break a deadlock. */
const DELETE_TRIES = 3;

/**
 * The delete cascades to the endpoint's deliveries and attempts: it holds the endpoint's row, then
 * waits for a delivery a sender is updating, while that sender's chain statement (a delivery
 * first, then an attempt, which needs the endpoint's key) waits for the endpoint. Postgres aborts
 * one of the two, usually the delete (it waited first): the sender runs its statement again
 * (acknowledgements.ts), and so does the delete, rather than answer 500 (DECISIONS D-097).
 */
export async function deleteEndpoint(ex: Executor, brokerageId: number, id: number): Promise<void> {
  const gone = await retryOnDeadlock(DELETE_TRIES, () =>
    ex
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.brokerageId, brokerageId)))
      .returning({ id: webhookEndpoints.id }),
  );
  if (gone.length === 0) throw new NotFound(`webhook endpoint ${id} not found`);
}

/** A new secret, returned this once; the previous one keeps signing beside it for graceSeconds. */
export async function rotateSecret(ex: Executor, box: SecretBox, brokerageId: number, id: number, graceSeconds: number) {
  const current = await ownEndpoint(ex, brokerageId, id);
  const secret = generateWebhookSecret();
  const [row] = await ex
    .update(webhookEndpoints)
    .set({
      secretCiphertext: box.seal(secret, secretAad(id)),
      previousSecretCiphertext: graceSeconds > 0 ? current.secretCiphertext : null,
      previousSecretExpiresAt: graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null,
      updatedAt: new Date(),
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return { ...endpointJson(row!, await brokerageLivemode(ex, brokerageId)), secret };
}
