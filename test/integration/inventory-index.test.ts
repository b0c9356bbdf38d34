import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { signatureFor, topLevelSortedQuery } from '../../src/auth/signer.ts';
import type { Database } from '../../src/db/client.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { parseIndexQuery } from '../../src/inventory/index-query.ts';
import { readInventoryPage } from '../../src/inventory/read-inventory.ts';
import { BUYER, SELLER, SELLER_USER, STRANGER, baseFixture } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Text that JSON must escape: quotes, a backslash, a newline, a tab, and characters beyond ASCII.
const NOTES = 'aisle "A" \\ back\nstage\tü ✓ 🎫';

/** Office 10: four hand-written records. Office 11: 25,000 generated ones (see loadBigOffice). */
function fixture() {
  const f = baseFixture();
  f.ticket_groups = [
    {
      office_id: 10,
      remote_id: 1,
      id: 900001,
      event_id: 5000,
      account_email: 'box@acme.test',
      cost: '125',
      taxed_cost: '131.25',
      price: 150.5,
      face_value: '100.00',
      discount: '0',
      quantity: 2,
      format: 'X_MOBILE',
      type: 'EVENT',
      view_type: 'FULL',
      section: '101',
      row: 'F',
      seats: [
        { barcode: 'B-2', primary_ticket_id: 77, seat: '2', verification_id: 'V2' },
        { barcode: null, primary_ticket_id: null, seat: '1', verification_id: null },
      ],
      split_type: 'NEVERLEAVEONE',
      split_override: [2],
      wheelchair_accessible: true,
      eticket: false,
      instant_delivery: true,
      in_hand: false,
      in_hand_on: '2026-12-01',
      external_notes: NOTES,
      speculative: false,
    },
    { office_id: 10, remote_id: 2, id: null, event_id: null, quantity: 4 },
    { office_id: 10, remote_id: 5, id: 900000, event_id: 5000, quantity: 1, price: '99.9' },
    { office_id: 10, remote_id: 7, id: null, event_id: null, quantity: 3 },
    { office_id: 20, remote_id: 1, id: 800001, event_id: 5000, quantity: 2 },
  ];
  return f;
}

// Office 11: remote_ids 3, 6, 9, … (gaps, so "last + 1" is tested); every fourth unmapped; service
// ids a permutation of the remote order, so detailed paging by id visits records in another order.
const BIG = 25_000;
const bigRemote = (g: number) => g * 3;
const bigMapped = (g: number) => g % 4 !== 0;
const bigId = (g: number) => 3_000_000 + ((g * 7919) % BIG);

async function loadBigOffice(database: Database): Promise<void> {
  await database.sql!.unsafe(`
    insert into ticket_groups (office_id, remote_id, id, event_id, quantity, price, section, row, created_at, updated_at)
    select 11, g * 3, case when g % 4 <> 0 then 3000000 + (g * 7919) % ${BIG} end, case when g % 4 <> 0 then 5000 end,
           2, 10 + g % 100, 'S' || g, 'R', '2026-11-21T09:00:00Z', '2026-11-21T09:00:00Z'
    from generate_series(1, ${BIG}) g;
    insert into seats (ticket_group_pk, position, seat, barcode)
    select tg.pk, p, tg.remote_id || '-' || p, null from ticket_groups tg, generate_series(0, 1) p where tg.office_id = 11;
    analyze ticket_groups; analyze seats;`);
}

type Rec = { id: number | null; remote_id: number; event_id: number | null };
type Detailed = Rec & { seats: unknown[]; [k: string]: unknown };

describe('GET /v9/inventory', () => {
  let t: TestService;
  const get = (query: string, cred = SELLER) => signedFetch(t.url, cred, 'GET', `/v9/inventory?${query}`);
  const json = async (query: string, cred = SELLER) => {
    const res = await get(query, cred);
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json() as Promise<unknown>;
  };
  const refused = async (query: string, status: number, cred = SELLER) => {
    const res = await get(query, cred);
    expect(res.status).toBe(status);
    return (await res.json()) as { errors: Array<{ code: string; message: string; field?: string }> };
  };

  beforeAll(async () => {
    t = await startTestService();
    await t.seed(fixture());
    await t.db.database.sql!.unsafe(
      `update ticket_groups set created_at = '2026-11-21T09:00:00.123456Z', updated_at = '2026-11-22T10:30:00Z' where office_id = 10`,
    );
    await loadBigOffice(t.db.database);
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('default mode', () => {
    it('answers a bare JSON array of id, remote_id, event_id ordered by remote_id (I1, I3)', async () => {
      const res = await get('office_id=10');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual([
        { id: 900001, remote_id: 1, event_id: 5000 },
        { id: null, remote_id: 2, event_id: null },
        { id: 900000, remote_id: 5, event_id: 5000 },
        { id: null, remote_id: 7, event_id: null },
      ]);
    });

    it('filters by state: MAPPED has both ids, UNMAPPED neither, ALL both kinds (I4)', async () => {
      expect(await json('office_id=10&state=MAPPED')).toEqual([
        { id: 900001, remote_id: 1, event_id: 5000 },
        { id: 900000, remote_id: 5, event_id: 5000 },
      ]);
      expect(await json('office_id=10&state=UNMAPPED')).toEqual([
        { id: null, remote_id: 2, event_id: null },
        { id: null, remote_id: 7, event_id: null },
      ]);
      expect(await json('office_id=10&state=ALL')).toHaveLength(4);
    });

    it('with state ALL and no page gives the first 10000 records from remote_id 1 (docs/API.md §Inventory)', async () => {
      const page = (await json('office_id=11')) as Rec[];
      expect(page).toHaveLength(10_000);
      expect(page[0]).toEqual({ id: bigId(1), remote_id: 3, event_id: 5000 });
      expect(page[9_999]!.remote_id).toBe(bigRemote(10_000));
    });

    it('starts at the cursor, inclusive, and honours page[items] from 1 to 10000 (I3)', async () => {
      expect(await json('office_id=10&state=MAPPED&page[cursor]=5&page[items]=1')).toEqual([{ id: 900000, remote_id: 5, event_id: 5000 }]);
      expect(await json('office_id=10&state=UNMAPPED&page[cursor]=3')).toEqual([{ id: null, remote_id: 7, event_id: null }]);
      expect(await json('office_id=10&state=MAPPED&page[cursor]=0&page[items]=1')).toEqual([{ id: 900001, remote_id: 1, event_id: 5000 }]);
      expect(await json('office_id=11&state=MAPPED&page[items]=10000')).toHaveLength(10_000);
      const over = await refused('office_id=11&state=MAPPED&page[items]=10001', 400);
      expect(over).toEqual({
        errors: [{ code: 'invalid_params', message: 'page[items] must be less than or equal to 10000', field: 'page[items]' }],
      });
    });

    it('answers [] past the last record', async () => {
      const res = await get('office_id=10&state=MAPPED&page[cursor]=6');
      expect(await res.text()).toBe('[]');
      expect(await json(`office_id=11&state=UNMAPPED&page[cursor]=${bigRemote(BIG) + 1}`)).toEqual([]);
    });

    it('refuses paging with state ALL or no state (I2)', async () => {
      for (const q of ['office_id=10&page[cursor]=1', 'office_id=10&state=ALL&page[items]=5', 'office_id=10&page[items]=5']) {
        expect(await refused(q, 400)).toEqual({
          errors: [{ code: 'invalid_params', message: 'state: must be MAPPED or UNMAPPED when paginating', field: 'state' }],
        });
      }
    });
  });

  describe('detailed mode', () => {
    it('answers {"inventory": [...]} with every field, ordered by service id (D1)', async () => {
      const body = (await json('office_id=10&response=detailed&page[cursor]=1')) as { inventory: Detailed[] };
      expect(Object.keys(body)).toEqual(['inventory']);
      expect(body.inventory.map((r) => r.id)).toEqual([900000, 900001]);
      expect(body.inventory[1]).toEqual({
        id: 900001,
        remote_id: 1,
        event_id: 5000,
        office_id: 10,
        account_email: 'box@acme.test',
        cost: '125.00',
        taxed_cost: '131.25',
        price: '150.50',
        face_value: '100.00',
        discount: '0.00',
        quantity: 2,
        format: 'X_MOBILE',
        type: 'EVENT',
        view_type: 'FULL',
        section: '101',
        row: 'F',
        seats: [
          { barcode: 'B-2', primary_ticket_id: 77, seat: '2', verification_id: 'V2' },
          { barcode: null, primary_ticket_id: null, seat: '1', verification_id: null },
        ],
        split_type: 'NEVERLEAVEONE',
        split_override: [2],
        wheelchair_accessible: true,
        eticket: false,
        instant_delivery: true,
        in_hand: false,
        in_hand_on: '2026-12-01',
        external_notes: NOTES,
        speculative: false,
        created_at: '2026-11-21T09:00:00.123Z',
        updated_at: '2026-11-22T10:30:00.000Z',
      });
      // Unset optional fields: null, except the two arrays, which are empty.
      expect(body.inventory[0]).toMatchObject({ price: '99.90', cost: null, in_hand_on: null, seats: [], split_override: [] });
    });

    it('keeps the documented field order in the JSON text', async () => {
      const text = await (await get('office_id=10&response=detailed&page[items]=1')).text();
      const keys = [...text.matchAll(/"([a-z_]+)":/g)]
        .map((m) => m[1])
        .filter((k) => !['barcode', 'primary_ticket_id', 'seat', 'verification_id', 'inventory'].includes(k!));
      expect(keys).toEqual([
        'id',
        'remote_id',
        'event_id',
        'office_id',
        'account_email',
        'cost',
        'taxed_cost',
        'price',
        'face_value',
        'discount',
        'quantity',
        'format',
        'type',
        'view_type',
        'section',
        'row',
        'seats',
        'split_type',
        'split_override',
        'wheelchair_accessible',
        'eticket',
        'instant_delivery',
        'in_hand',
        'in_hand_on',
        'external_notes',
        'speculative',
        'created_at',
        'updated_at',
      ]);
    });

    it('accepts state MAPPED or none, refuses UNMAPPED and ALL (D2)', async () => {
      expect(
        ((await json('office_id=10&response=detailed&state=MAPPED&page[items]=5')) as { inventory: unknown[] }).inventory,
      ).toHaveLength(2);
      for (const state of ['UNMAPPED', 'ALL']) {
        expect(await refused(`office_id=10&response=detailed&state=${state}&page[cursor]=1`, 400)).toEqual({
          errors: [{ code: 'invalid_params', message: 'state: must be MAPPED in detailed mode', field: 'state' }],
        });
      }
    });

    it('says "page is missing" without a page parameter (D3)', async () => {
      for (const q of ['office_id=10&response=detailed', 'office_id=10&response=detailed&state=MAPPED']) {
        expect(await refused(q, 400)).toEqual({ errors: [{ code: 'invalid_params', message: 'page is missing', field: 'page' }] });
      }
    });

    it('takes page[items] up to 1000 and refuses more with the documented text (D4)', async () => {
      expect(((await json('office_id=11&response=detailed&page[items]=1000')) as { inventory: unknown[] }).inventory).toHaveLength(1000);
      expect(((await json('office_id=11&response=detailed&page[items]=1')) as { inventory: unknown[] }).inventory).toHaveLength(1);
      expect(await refused('office_id=11&response=detailed&page[items]=1001', 400)).toEqual({
        errors: [{ code: 'invalid_params', message: 'page[items] must be less than or equal to 1000', field: 'page[items]' }],
      });
    });

    it('pages by service id: the cursor is the last id + 1 (D5); past the end {"inventory":[]}', async () => {
      const first = (await json('office_id=10&response=detailed&page[items]=1')) as { inventory: Detailed[] };
      expect(first.inventory.map((r) => r.id)).toEqual([900000]);
      const next = (await json('office_id=10&response=detailed&page[items]=1&page[cursor]=900001')) as { inventory: Detailed[] };
      expect(next.inventory.map((r) => r.remote_id)).toEqual([1]);
      expect(await (await get('office_id=10&response=detailed&page[cursor]=900002')).text()).toBe('{"inventory":[]}');
    });
  });

  describe('paging through an office of 25,000 records', () => {
    const expected = (mapped: boolean | undefined) =>
      Array.from({ length: BIG }, (_, i) => i + 1)
        .filter((g) => mapped === undefined || bigMapped(g) === mapped)
        .map((g) =>
          bigMapped(g) ? { id: bigId(g), remote_id: bigRemote(g), event_id: 5000 } : { id: null, remote_id: bigRemote(g), event_id: null },
        );

    it('default mode returns each record once, in remote_id order, for MAPPED and UNMAPPED (I3)', async () => {
      for (const [state, items] of [
        ['MAPPED', 10_000],
        ['UNMAPPED', 2_000],
      ] as const) {
        const seen: Rec[] = [];
        let cursor = 1;
        for (let pages = 0; ; pages++) {
          expect(pages).toBeLessThan(30);
          const page = (await json(`office_id=11&state=${state}&page[cursor]=${cursor}&page[items]=${items}`)) as Rec[];
          if (page.length === 0) break;
          seen.push(...page);
          cursor = page[page.length - 1]!.remote_id + 1;
        }
        expect(seen).toEqual(expected(state === 'MAPPED'));
      }
    });

    it('detailed mode returns each mapped record once, in service id order (D5)', async () => {
      const seen: Detailed[] = [];
      let cursor = 1;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(30);
        const { inventory } = (await json(`office_id=11&response=detailed&page[cursor]=${cursor}&page[items]=1000`)) as {
          inventory: Detailed[];
        };
        seen.push(...inventory);
        if (inventory.length < 1000) break;
        cursor = inventory[inventory.length - 1]!.id! + 1;
      }
      const want = expected(true).sort((a, b) => a.id! - b.id!);
      expect(seen.map(({ id, remote_id, event_id }) => ({ id, remote_id, event_id }))).toEqual(want);
      expect(seen.every((r) => r.office_id === 11 && r.seats.length === 2 && r.created_at === '2026-11-21T09:00:00.000Z')).toBe(true);
      expect(seen[0]!.seats).toEqual([
        { barcode: null, primary_ticket_id: null, seat: `${seen[0]!.remote_id}-0`, verification_id: null },
        { barcode: null, primary_ticket_id: null, seat: `${seen[0]!.remote_id}-1`, verification_id: null },
      ]);
    });
  });

  describe('offices and parameters', () => {
    it('answers 401 alike for an office of another brokerage and one that does not exist, in both modes (D6)', async () => {
      const bodies = [];
      for (const office of [20, 30, 999_999]) {
        for (const q of [`office_id=${office}`, `office_id=${office}&response=detailed&page[cursor]=1`]) {
          const body = await refused(q, 401);
          expect(body.errors[0]!.code).toBe('unauthorized');
          expect(body.errors[0]!.message).not.toMatch(/10|11|20|30|999999/);
          bodies.push(JSON.stringify(body));
        }
      }
      expect(new Set(bodies).size).toBe(1);
      // Office 20 is the buyer's own; the seller's credentials cannot read it, the buyer's can.
      expect(await json('office_id=20', BUYER)).toEqual([{ id: 800001, remote_id: 1, event_id: 5000 }]);
      expect((await refused('office_id=10', 401, STRANGER)).errors[0]!.code).toBe('unauthorized');
    });

    it('serves a user credential of the brokerage like its API credential', async () => {
      expect(await json('office_id=10&state=MAPPED', SELLER_USER)).toHaveLength(2);
    });

    it('refuses response=foo, unknown parameters and a missing office_id with 400', async () => {
      expect(await refused('office_id=10&response=foo', 400)).toEqual({
        errors: [{ code: 'invalid_params', message: 'response: must be detailed or absent', field: 'response' }],
      });
      expect(await refused('office_id=10&colour=red', 400)).toEqual({
        errors: [{ code: 'invalid_params', message: 'colour: not a recognised parameter', field: 'colour' }],
      });
      expect((await refused('office_id=10&state=MAPPED&page[size]=2', 400)).errors[0]!.field).toBe('page[size]');
      expect((await refused('state=MAPPED', 400)).errors[0]).toMatchObject({ message: 'office_id: is missing' });
      expect((await refused('office_id=abc', 400)).errors[0]!.field).toBe('office_id');
      expect((await refused('office_id=10&state=mapped', 400)).errors[0]!.field).toBe('state');
      expect((await refused('office_id=10&state=MAPPED&page[cursor]=-1', 400)).errors[0]!.field).toBe('page[cursor]');
    });

    it('refuses an unsigned request before looking at the query', async () => {
      // Signed, this query is a 400 (response=foo); unsigned it must be a 401, so auth ran first.
      expect((await refused('office_id=10&response=foo', 400)).errors[0]!.field).toBe('response');
      const res = await fetch(`${t.url}/v9/inventory?office_id=10&response=foo`);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { errors: Array<{ code: string }> }).errors[0]!.code).toBe('unauthorized');
    });

    it('accepts a request signed ticketevolution-style: pairs stable-sorted by top-level name, percent-encoded', async () => {
      const pairs: Array<[string, string]> = [
        ['response', 'detailed'],
        ['page[items]', '1'],
        ['page[cursor]', '900001'],
        ['office_id', '10'],
      ];
      const query = topLevelSortedQuery(pairs);
      expect(query).toBe('office_id=10&page%5Bitems%5D=1&page%5Bcursor%5D=900001&response=detailed');
      const base = new URL(t.url);
      const signature = signatureFor(SELLER.secret, { method: 'GET', host: base.hostname, path: '/v9/inventory', rest: query });
      const res = await fetch(`${t.url}/v9/inventory?${query}`, { headers: { 'X-Token': SELLER.token, 'X-Signature': signature } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { inventory: Detailed[] }).inventory.map((r) => r.remote_id)).toEqual([1]);
    });
  });
});

describe('GET /v9/inventory on embedded PGlite', () => {
  // The service runs on PGlite (no DATABASE_URL); the file's Postgres database gets the same data,
  // so the two engines' answers can be compared byte for byte.
  let embedded: TestService;

  beforeAll(async () => {
    embedded = await startTestService({ env: { DATABASE_URL: '' } });
    expect(embedded.service.database.kind).toBe('pglite');
    const box = SecretBox.fromKey(randomBytes(32));
    for (const database of [embedded.service.database, embedded.db.database]) {
      await seedDatabase(
        database,
        fixtureSchema.parse(fixture()),
        database === embedded.service.database ? embedded.service.secretBox : box,
      );
      await database.db.execute(sql`update ticket_groups set created_at = '2026-11-21T09:00:00.5Z', updated_at = '2026-11-21T09:00:00.5Z'`);
    }
  });
  afterAll(async () => {
    await embedded?.stop();
  });

  it('answers over HTTP byte for byte what Postgres produces, in every mode', async () => {
    const queries = [
      'office_id=10',
      'office_id=10&state=MAPPED&page[cursor]=2',
      'office_id=10&state=UNMAPPED&page[items]=1',
      'office_id=10&response=detailed&page[cursor]=1',
      'office_id=10&response=detailed&page[cursor]=900002',
    ];
    for (const query of queries) {
      const res = await signedFetch(embedded.url, SELLER, 'GET', `/v9/inventory?${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const q = parseIndexQuery(Object.fromEntries(new URLSearchParams(query)));
      expect(await res.text()).toBe(await readInventoryPage(embedded.db.database, q));
    }
    const res = await signedFetch(embedded.url, SELLER, 'GET', '/v9/inventory?office_id=10&response=detailed&page[items]=1');
    expect(((await res.json()) as { inventory: Detailed[] }).inventory[0]).toMatchObject({
      id: 900000,
      price: '99.90',
      created_at: '2026-11-21T09:00:00.500Z',
      external_notes: null,
    });
    expect((await signedFetch(embedded.url, SELLER, 'GET', '/v9/inventory?office_id=20')).status).toBe(401);
  });
});
