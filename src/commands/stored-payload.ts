import type { JobName } from '@fulfil/contract';

/**
 * What `commands.payload` keeps of a command, for operators reading it later. Idempotency does
 * not need it (the request hash does that), so a bulk payload — an inventory batch of up to
 * 10,000 ticket groups, megabytes — is kept as a summary instead of in full.
 */
export function storedPayload(name: JobName, payload: unknown): object {
  if (name === 'inventory.upsert' || name === 'inventory.map' || name === 'inventory.remove') {
    const p = payload as { officeId?: unknown; records?: unknown[]; mappings?: unknown[]; remoteIds?: unknown[] };
    const items = p.records ?? p.mappings ?? p.remoteIds;
    return { officeId: p.officeId, items: Array.isArray(items) ? items.length : null, summarized: true };
  }
  return (payload ?? {}) as object;
}
