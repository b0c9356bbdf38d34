import { sql } from 'drizzle-orm';
import { bigint, bigserial, customType, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const ref = (name: string) => bigint(name, { mode: 'number' });
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** What a file was checked to be (src/files/inspect-file.ts). */
export const FILE_MEDIA_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type FileMediaType = (typeof FILE_MEDIA_TYPES)[number];

/** The kinds of file set a shipment holds: the buyer's e-tickets, the seller's proofs of a mobile transfer, a mailed shipment's label. */
export const FILE_SET_KINDS = ['etickets', 'transfer_verification', 'airbill'] as const;
export type FileSetKind = (typeof FILE_SET_KINDS)[number];

/**
 * Every file, once, by the sha256 of its bytes (content-addressed): the same ticket uploaded twice,
 * or a retried upload, is one row. `content` holds the bytes with the Postgres store and is null
 * with an external one (FILE_STORE_URL, src/files/s3-store.ts), which keeps them under the hash.
 * What the file was checked to be is kept beside it, so the command that attaches it reads the
 * facts it decides on (pages) from here, never from a job's payload. `stored_at` is refreshed by
 * every upload and attachment of the file: housekeeping removes only a file no set references and
 * nobody stored within the grace period (workers/housekeeping/prune-files.ts).
 */
export const storedFiles = pgTable('stored_files', {
  sha256: text('sha256').primaryKey(),
  bytes: integer('bytes').notNull(),
  mediaType: text('media_type', { enum: FILE_MEDIA_TYPES }).notNull(),
  pages: integer('pages'),
  width: integer('width'),
  height: integer('height'),
  content: bytea('content'),
  storedAt: timestamp('stored_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One upload of files to a shipment: a command made it (one set per command id, so a retried
 * command cannot attach twice). A new e-ticket set replaces the shipment's current one, which
 * stays (replaced_at set) for the history until the retention; proofs of transfer add up.
 */
export const shipmentFileSets = pgTable(
  'shipment_file_sets',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orderId: ref('order_id').notNull(),
    shipmentId: ref('shipment_id').notNull(),
    kind: text('kind', { enum: FILE_SET_KINDS }).notNull(),
    commandId: text('command_id').notNull().unique(),
    brokerageId: ref('brokerage_id').notNull(),
    userId: ref('user_id'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`fulfil_now()`),
    replacedAt: timestamp('replaced_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('shipment_file_sets_one_current')
      .on(t.shipmentId)
      .where(sql`${t.kind} = 'etickets' and ${t.replacedAt} is null`),
    index('shipment_file_sets_shipment_idx').on(t.shipmentId, t.kind),
    index('shipment_file_sets_replaced_idx')
      .on(t.replacedAt)
      .where(sql`${t.replacedAt} is not null`),
  ],
);

/** A file of a set, in the order given: its id is the e-ticket id of the API. */
export const shipmentFiles = pgTable(
  'shipment_files',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    setId: ref('set_id')
      .notNull()
      .references(() => shipmentFileSets.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    // Never cascades: a referenced file cannot be deleted (housekeeping's delete would fail).
    sha256: text('sha256')
      .notNull()
      .references(() => storedFiles.sha256, { onDelete: 'restrict' }),
    seat: text('seat'),
    barcode: text('barcode'),
    note: text('note'),
  },
  (t) => [uniqueIndex('shipment_files_set_position').on(t.setId, t.position), index('shipment_files_sha256_idx').on(t.sha256)],
);

/**
 * One-time download links of an e-ticket (POST /v9/shipments/:id/etickets/link): only the sha256
 * of the token is kept, so a database dump gives no working link; `used_at` is set by the one
 * download it allows.
 */
export const fileLinks = pgTable('file_links', {
  tokenSha256: text('token_sha256').primaryKey(),
  fileId: ref('file_id')
    .notNull()
    .references(() => shipmentFiles.id, { onDelete: 'cascade' }),
  brokerageId: ref('brokerage_id').notNull(),
  userId: ref('user_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  usedBy: text('used_by'),
});
