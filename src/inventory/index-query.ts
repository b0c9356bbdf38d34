import { z } from 'zod';
import { parseQuery, queryInteger } from '../domain/query-params.ts';
import { InvalidParams } from '@fulfil/contract';

export type InventoryState = 'ALL' | 'MAPPED' | 'UNMAPPED';

/**
 * One validated page request of GET /v9/inventory. `cursor` is a remote_id in default mode and a
 * service id in detailed mode (I3, D5); both modes read the records whose key is >= cursor.
 */
export type IndexQuery =
  | { mode: 'default'; officeId: number; state: InventoryState; cursor: number; items: number }
  | { mode: 'detailed'; officeId: number; state: 'MAPPED'; cursor: number; items: number };

export const DEFAULT_MODE_MAX_ITEMS = 10_000;
export const DETAILED_MODE_MAX_ITEMS = 1_000;
export const DEFAULT_CURSOR = 1;

const MAX_ID = Number.MAX_SAFE_INTEGER;
const officeId = queryInteger('office_id', 1, MAX_ID).describe(
  'office whose inventory is listed; must be of your brokerage (401 otherwise)',
);
const cursor = queryInteger('page[cursor]', 0, MAX_ID).optional();
// The v9 contract spells this one refusal word for word (D4), without the colon of the others.
const items = (max: number) => queryInteger('page[items]', 1, max, `page[items] must be less than or equal to ${max}`).optional();
const PAGE_KEYS = ['page[cursor]', 'page[items]'] as const;
const STATE_MESSAGE = 'state: must be one of ALL, MAPPED, UNMAPPED';

/** A mode that pages needs at least one page parameter: one rule, checked and documented. */
function paged<T extends z.ZodObject>(schema: T, message: string, path: string) {
  return schema
    .refine((q: Record<string, unknown>) => PAGE_KEYS.some((k) => q[k] !== undefined), { message, path: [path] })
    .meta({ anyOf: PAGE_KEYS.map((k) => ({ required: [k] })) });
}

/**
 * The three modes of GET /v9/inventory (rules I1–I4, D1–D6 of docs/API.md §Inventory), each the
 * schema a query of that mode is checked with and documented by: exactly one matches a valid query.
 */
export const INVENTORY_MODES = {
  all: z
    .strictObject({
      office_id: officeId,
      state: z.enum(['ALL', 'MAPPED', 'UNMAPPED'], { error: STATE_MESSAGE }).optional().describe('default ALL'),
    })
    .meta({ title: 'Default mode, one page', description: `Up to ${DEFAULT_MODE_MAX_ITEMS} records from remote_id 1; no page parameter` }),
  paged: paged(
    z.strictObject({
      office_id: officeId,
      state: z.enum(['MAPPED', 'UNMAPPED'], { error: 'state: must be MAPPED or UNMAPPED when paginating' }),
      'page[cursor]': cursor.describe('first remote_id of the page (default 1); next page: last remote_id + 1'),
      'page[items]': items(DEFAULT_MODE_MAX_ITEMS).describe(`records per page (default ${DEFAULT_MODE_MAX_ITEMS})`),
    }),
    'page: give page[cursor] or page[items]',
    'page',
  ).meta({ title: 'Default mode, paging', description: 'state MAPPED or UNMAPPED, and at least one page parameter' }),
  detailed: paged(
    z.strictObject({
      office_id: officeId,
      response: z.literal('detailed', { error: 'response: must be detailed or absent' }),
      state: z.literal('MAPPED', { error: 'state: must be MAPPED in detailed mode' }).optional().describe('MAPPED, the only value'),
      'page[cursor]': cursor.describe('first id of the page (default 1); next page: last id + 1'),
      'page[items]': items(DETAILED_MODE_MAX_ITEMS).describe(`records per page (default ${DETAILED_MODE_MAX_ITEMS})`),
    }),
    'page is missing',
    'page',
  ).meta({ title: 'Detailed mode', description: 'response=detailed and at least one page parameter' }),
};

/** Every valid query, for the document: exactly one mode matches it. */
export const inventoryQuery = z.xor([INVENTORY_MODES.all, INVENTORY_MODES.paged, INVENTORY_MODES.detailed]);

/** A query as Fastify's default parser gives it: literal `page[cursor]` keys, repeats as arrays. */
export type RawQuery = Record<string, string | string[] | undefined>;

/**
 * Validates the query string of the inventory index. Pure: the office check needs the database
 * and the caller, so the route does it after this. The mode is told by the keys (`response`
 * given, a page parameter given), and the query is checked with that mode's schema, so the
 * message speaks of that mode's rules.
 */
export function parseIndexQuery(raw: RawQuery): IndexQuery {
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) throw new InvalidParams(`${key}: must be given once`, key);
  }
  if (raw.state !== undefined && !['ALL', 'MAPPED', 'UNMAPPED'].includes(raw.state as string)) {
    throw new InvalidParams(STATE_MESSAGE, 'state');
  }
  const mode = raw.response !== undefined ? 'detailed' : PAGE_KEYS.some((k) => raw[k] !== undefined) ? 'paged' : 'all';
  const q = parseQuery(INVENTORY_MODES[mode], raw) as {
    office_id: number;
    state?: InventoryState;
    'page[cursor]'?: number;
    'page[items]'?: number;
  };
  const page = { cursor: q['page[cursor]'] ?? DEFAULT_CURSOR };
  if (mode === 'detailed') {
    return { mode, officeId: q.office_id, state: 'MAPPED', ...page, items: q['page[items]'] ?? DETAILED_MODE_MAX_ITEMS };
  }
  return { mode: 'default', officeId: q.office_id, state: q.state ?? 'ALL', ...page, items: q['page[items]'] ?? DEFAULT_MODE_MAX_ITEMS };
}
