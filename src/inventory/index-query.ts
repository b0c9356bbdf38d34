import { InvalidParams } from '../errors.ts';

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

const KNOWN = new Set(['office_id', 'state', 'response', 'page[cursor]', 'page[items]']);
const STATES: readonly string[] = ['ALL', 'MAPPED', 'UNMAPPED'];

/** A query as Fastify's default parser gives it: literal `page[cursor]` keys, repeats as arrays. */
export type RawQuery = Record<string, string | string[] | undefined>;

/**
 * Validates the query string of the inventory index (rules I1–I4, D1–D6 of docs/API.md §Inventory). Pure: the
 * office check needs the database and the caller, so the route does it after this.
 */
export function parseIndexQuery(raw: RawQuery): IndexQuery {
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key)) throw new InvalidParams(`${key} is not a recognised parameter`, key);
  }
  const officeRaw = single(raw, 'office_id');
  if (officeRaw === undefined) throw new InvalidParams('office_id is missing', 'office_id');
  const officeId = integer(officeRaw, 'office_id', 1);

  const stateRaw = single(raw, 'state');
  if (stateRaw !== undefined && !STATES.includes(stateRaw)) {
    throw new InvalidParams('state must be one of ALL, MAPPED, UNMAPPED', 'state');
  }
  const responseRaw = single(raw, 'response');
  if (responseRaw !== undefined && responseRaw !== 'detailed') {
    throw new InvalidParams('response must be detailed or absent', 'response');
  }
  const cursorRaw = single(raw, 'page[cursor]');
  const itemsRaw = single(raw, 'page[items]');
  const paginating = cursorRaw !== undefined || itemsRaw !== undefined;
  const cursor = cursorRaw === undefined ? DEFAULT_CURSOR : integer(cursorRaw, 'page[cursor]', 0);

  if (responseRaw === 'detailed') {
    if (stateRaw !== undefined && stateRaw !== 'MAPPED') {
      throw new InvalidParams('state must be MAPPED in detailed mode', 'state');
    }
    if (!paginating) throw new InvalidParams('page is missing', 'page');
    const items = itemsRaw === undefined ? DETAILED_MODE_MAX_ITEMS : pageItems(itemsRaw, DETAILED_MODE_MAX_ITEMS);
    return { mode: 'detailed', officeId, state: 'MAPPED', cursor, items };
  }

  const state = (stateRaw ?? 'ALL') as InventoryState;
  const items = itemsRaw === undefined ? DEFAULT_MODE_MAX_ITEMS : pageItems(itemsRaw, DEFAULT_MODE_MAX_ITEMS);
  if (paginating && state === 'ALL') {
    throw new InvalidParams('state must be MAPPED or UNMAPPED when paginating', 'state');
  }
  return { mode: 'default', officeId, state, cursor, items };
}

function single(raw: RawQuery, key: string): string | undefined {
  const v = raw[key];
  if (Array.isArray(v)) throw new InvalidParams(`${key} must be given once`, key);
  return v;
}

// Digits only: "+5", "1e3", "2.0" and " 7" are all refused rather than guessed at.
function integer(value: string, field: string, min: number): number {
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new InvalidParams(`${field} must be ${min === 0 ? 'a non-negative' : 'a positive'} integer`, field);
  }
  if (n < min) throw new InvalidParams(`${field} must be greater than or equal to ${min}`, field);
  return n;
}

function pageItems(value: string, max: number): number {
  const n = integer(value, 'page[items]', 1);
  if (n > max) throw new InvalidParams(`page[items] must be less than or equal to ${max}`, 'page[items]');
  return n;
}
