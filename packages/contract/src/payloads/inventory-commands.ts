import { z } from 'zod';
import { positiveId } from './validation.ts';
import { ticketGroupInput } from './ticket-group-input.ts';

/** Most records one inventory command may carry: one Redis job, one transaction. */
export const MAX_INVENTORY_BATCH = 10_000;

const officeId = positiveId;

/**
 * Flags the second and later occurrences of a value in a batch, naming the item and the first
 * one, so a rejected batch says exactly which line to fix.
 */
function distinct<T>(
  items: readonly T[],
  value: (item: T) => number | null,
  where: (index: number) => PropertyKey[],
  what: string,
  ctx: z.RefinementCtx,
): void {
  const first = new Map<number, number>();
  items.forEach((item, i) => {
    const v = value(item);
    if (v === null) return;
    const seen = first.get(v);
    if (seen === undefined) first.set(v, i);
    else ctx.addIssue({ code: 'custom', path: where(i), message: `${what} ${v} also appears at index ${seen} of this batch` });
  });
}

/** inventory.upsert: ticket groups of one office, inserted or replaced by remote_id (seats as a whole). */
export const inventoryUpsertCommand = z
  .strictObject({
    officeId,
    records: z.array(ticketGroupInput).min(1).max(MAX_INVENTORY_BATCH),
  })
  .superRefine((c, ctx) => {
    distinct(
      c.records,
      (r) => r.remote_id,
      (i) => ['records', i, 'remote_id'],
      'remote_id',
      ctx,
    );
    distinct(
      c.records,
      (r) => r.id,
      (i) => ['records', i, 'id'],
      'id',
      ctx,
    );
  });
export type InventoryUpsertCommand = z.output<typeof inventoryUpsertCommand>;

/** One mapping: set (id and event_id) or clear (both null); both keys are required. */
export const inventoryMapping = z
  .strictObject({
    remote_id: positiveId,
    id: positiveId.nullable(),
    event_id: positiveId.nullable(),
  })
  .refine((m) => (m.id === null) === (m.event_id === null), {
    message: 'id and event_id must both be set (mapped) or both be null (unmapped)',
    path: ['event_id'],
  });

/** inventory.map: maps or unmaps existing ticket groups of one office, by remote_id. */
export const inventoryMapCommand = z
  .strictObject({
    officeId,
    mappings: z.array(inventoryMapping).min(1).max(MAX_INVENTORY_BATCH),
  })
  .superRefine((c, ctx) => {
    distinct(
      c.mappings,
      (m) => m.remote_id,
      (i) => ['mappings', i, 'remote_id'],
      'remote_id',
      ctx,
    );
    distinct(
      c.mappings,
      (m) => m.id,
      (i) => ['mappings', i, 'id'],
      'id',
      ctx,
    );
  });
export type InventoryMapCommand = z.output<typeof inventoryMapCommand>;

/** inventory.remove: deletes ticket groups of one office (and their seats) by remote_id. */
export const inventoryRemoveCommand = z
  .strictObject({
    officeId,
    remoteIds: z.array(positiveId).min(1).max(MAX_INVENTORY_BATCH),
  })
  .superRefine((c, ctx) => {
    distinct(
      c.remoteIds,
      (r) => r,
      (i) => ['remoteIds', i],
      'remote_id',
      ctx,
    );
  });
export type InventoryRemoveCommand = z.output<typeof inventoryRemoveCommand>;
