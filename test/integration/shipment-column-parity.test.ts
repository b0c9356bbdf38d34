/**
 * Column parity: every column of the shipments table (read from the Drizzle table, not from the
 * code under test) is in the select list, in the accept insert and in the replacement insert, or
 * named by that statement as one it sets itself; it comes back through every row mapper; and it
 * shows in a read under the key SHIPMENT_READ_FIELDS gives it, or provably not at all. A column
 * dropped from the replacement (rule U1: every update inserts a new row) fails here, rather than
 * vanishing from every shipment the first time it is updated.
 */
import { getTableColumns } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import type { ShipmentContacts } from '../../src/db/ops/contacts.ts';
import { findShipment, type ShipmentRow } from '../../src/db/ops/shipment-rows.ts';
import { shipments } from '../../src/db/schema.ts';
import { ACCEPT, ACCEPT_SETS, acceptOrder } from '../../src/db/sql/accept-order.ts';
import { insertAddressAndPhone, insertEmailAddress, insertPhoneNumber } from '../../src/db/sql/insert-contacts.ts';
import { liveShipment } from '../../src/db/sql/live-shipment.ts';
import { REPLACE, REPLACE_SETS, replaceShipment } from '../../src/db/sql/replace-shipment.ts';
import { shipmentColumns } from '../../src/db/sql/shipment-columns.ts';
import { shipmentVersionJson, toShipmentVersion } from '../../src/db/sql/shipment-version.ts';
import { liveShipmentOf } from '../../src/read/live-shipment.ts';
import { SHIPMENT_READ_FIELDS, shipmentReadJson } from '../../src/read/shipment-json.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const COLUMNS = Object.entries(getTableColumns(shipments)).map(([key, c]) => ({ key: key as keyof ShipmentRow, column: c }));
/** The columns that name contact rows: a row with every column set needs real ones to point at. */
type ContactIds = Record<'emailAddressId' | 'shipFromAddressId' | 'shipFromPhoneNumberId' | 'phoneNumberId' | 'shipToAddressId', number>;
const ORDER = 7;

/** A row with every column set, each to a value that differs between versions 1 and 2. */
function fullRow(version: 1 | 2, contacts: ContactIds): ShipmentRow {
  const row: Record<string, unknown> = {};
  for (const { key, column } of COLUMNS) {
    // Widened: the chain below must also reach a type no column has yet.
    const c = column as { name: string; dataType: string; enumValues?: string[] };
    const choices = c.enumValues;
    if (key in contacts) row[key] = contacts[key as keyof ContactIds];
    else if (choices) row[key] = choices[choices.length - version];
    else if (c.dataType === 'number') row[key] = 1000 * version + COLUMNS.findIndex((x) => x.key === key);
    else if (c.dataType === 'string') row[key] = `${key} ${version}`;
    else if (c.dataType === 'json') row[key] = { key, version };
    else if (c.dataType === 'date') row[key] = new Date(Date.UTC(2030, 0, version, 12, 0, 0, 123));
    else if (c.dataType === 'boolean') row[key] = version === 1;
    else throw new Error(`shipments.${c.name}: give the parity test a value for ${c.dataType}`);
  }
  return { ...row, orderId: ORDER } as ShipmentRow;
}

/** The column list of a statement's `insert into shipments (…)`. */
function insertedNames(text: string): string[] {
  const list = /insert into shipments \(([^)]*)\)/.exec(text)?.[1];
  if (!list) throw new Error('no insert into shipments in the statement');
  return list.split(',').map((s) => s.trim());
}

describe('shipment columns in the statements', () => {
  // Changing what the replacement sets itself is a decision about rule U1: say it here too.
  it('the replacement carries every column but the five it sets itself', () => {
    expect(Object.keys(REPLACE_SETS).sort()).toEqual(['createdAt', 'deliveredAt', 'id', 'replacedAt', 'replacedBy']);
    expect(Object.keys(ACCEPT_SETS).sort()).toEqual(['createdAt', 'orderId', 'replacedAt', 'replacedBy']);
  });

  it.each([
    ['accept', ACCEPT.text, ACCEPT_SETS as Record<string, string>],
    ['replacement', REPLACE.text, REPLACE_SETS as Record<string, string>],
  ])('each column is in the select list and in the %s insert, or set by the statement', (_name, text, sets) => {
    const select = shipmentColumns('s');
    const inserted = insertedNames(text);
    const missing = COLUMNS.filter(({ key, column: c }) => !inserted.includes(c.name) && !(key in sets)).map((x) => x.column.name);
    expect(missing, 'columns neither inserted nor set by the statement').toEqual([]);
    for (const { key, column: c } of COLUMNS) {
      expect(select).toMatch(new RegExp(`\\bs\\.${c.name}${c.name === key ? '' : ` as "${key}"`}(,|$)`));
      // What the statement leaves out must be something the table fills in.
      if (!inserted.includes(c.name)) expect(!c.notNull || c.hasDefault, `${c.name} left to the table`).toBe(true);
    }
  });
});

/** Contact rows made up from the ids a row names, so that another id shows as other details. */
function contactsFor(s: ShipmentRow): ShipmentContacts {
  const at = new Date(Date.UTC(2030, 0, 1));
  const phone = (id: number) => ({ id, label: `p${id}`, countryCode: 'US', number: `555${id}`, extension: null, updatedAt: at });
  const a = s.shipFromAddressId!;
  const to = s.shipToAddressId!;
  return {
    shipToAddress: {
      ...{ id: to, label: null, name: `t${to}`, streetAddress: `${to} Elm St`, extendedAddress: null },
      ...{ locality: 'Chicago', region: 'IL', postalCode: '60601', countryCode: 'US' },
    },
    email: { id: s.emailAddressId!, address: `e${s.emailAddressId}@x.test`, label: null, updatedAt: at },
    shipFromAddress: {
      ...{ id: a, label: null, name: `a${a}`, streetAddress: `${a} Main St`, extendedAddress: null },
      ...{ locality: 'NYC', region: 'NY', postalCode: '10001', countryCode: 'US' },
    },
    shipFromPhone: phone(s.shipFromPhoneNumberId!),
    phone: phone(s.phoneNumberId!),
  };
}

describe('shipment columns in a read', () => {
  const ids = (n: number): ContactIds => ({
    emailAddressId: n,
    shipFromAddressId: n + 1,
    shipFromPhoneNumberId: n + 2,
    phoneNumberId: n + 3,
    shipToAddressId: n + 4,
  });
  const types = (getTableColumns(shipments).type as { enumValues: string[] }).enumValues;
  const render = (s: ShipmentRow) => shipmentReadJson(s, contactsFor(s)) as Record<string, unknown>;

  it.each(COLUMNS.map((c) => c.key))('%s shows where SHIPMENT_READ_FIELDS says, or nowhere', (key) => {
    const changed = new Set<string>();
    for (const type of types) {
      const base = { ...fullRow(1, ids(10)), type } as ShipmentRow;
      const other = fullRow(2, ids(20))[key];
      const moved = { ...base, [key]: key === 'type' ? types.find((t) => t !== type) : other } as ShipmentRow;
      const [before, after] = [render(base), render(moved)];
      for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) changed.add(k);
      }
    }
    const field = SHIPMENT_READ_FIELDS[key];
    if (typeof field === 'string') expect([...changed], `a read shows ${key} as ${field}`).toContain(field);
    else expect([...changed], `${key} is not shown (${field.notShown})`).toEqual([]);
  });
});

describe.each(['postgres', 'pglite'] as const)('a shipment written and replaced on %s keeps every column', (kind) => {
  let test: TestDatabase | undefined;
  let database: Database;
  beforeAll(async () => {
    if (kind === 'postgres') {
      test = await createTestDatabase();
      database = test.database;
    } else {
      database = await openDatabase({ pgliteDir: 'memory://' });
      await migrateDatabase(database);
    }
    await database.rows(`insert into brokerages (id, name) values (1, 'b')`, []);
    await database.rows(`insert into offices (id, brokerage_id, name) values (10, 1, 'o')`, []);
    await database.rows(`insert into users (id, brokerage_id, name, email) values (100, 1, 'u', 'u@x.test')`, []);
    await database.rows(
      `insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email)
       values (${ORDER}, '1-7', 10, 1, 'tbd', 1, 'n', 'e@x.test')`,
      [],
    );
  }, 60_000);
  afterAll(async () => {
    if (test) await test.drop();
    else await database?.close();
  });

  async function contactRows(n: number): Promise<ContactIds> {
    const phone = { country_code: 'US', number: `555000${n}` };
    const address = { name: `a${n}`, street_address: '1 Main St', locality: 'NYC', region: 'NY', postal_code: '10001', country_code: 'US' };
    const pickup = await insertAddressAndPhone(database, address, phone);
    return {
      emailAddressId: (await insertEmailAddress(database, `e${n}@x.test`)).id,
      shipFromAddressId: pickup.address.id,
      shipFromPhoneNumberId: pickup.phone.id,
      phoneNumberId: (await insertPhoneNumber(database, phone)).id,
      shipToAddressId: (await insertAddressAndPhone(database, { ...address, name: `t${n}` }, phone)).address.id,
    };
  }

  /** The row as every reader reads it, after checking that they all agree. */
  async function readEveryWay(id: number): Promise<ShipmentRow> {
    const raw = (await liveShipment(database, id, { drawNextId: false }))!.shipment;
    const [json] = await database.rows<{ v: unknown }>(`select ${shipmentVersionJson('$1::bigint')} as "v"`, [id]);
    const version = toShipmentVersion(json!.v)!;
    const built = (await liveShipmentOf(database.db, ORDER))!;
    expect(version.shipment, 'read through to_jsonb (webhook claims)').toEqual(raw);
    expect(built.shipment, 'read by the query builder').toEqual(raw);
    expect(version.contacts, 'contact rows through to_jsonb').toEqual(built.contacts);
    expect(Object.values(built.contacts).every(Boolean), 'a contact row for every contact column').toBe(true);
    return raw;
  }

  const event = { actor: { brokerageId: 1, userId: null, role: 'seller' as const }, commandId: 'parity' };
  const answer = { commandId: 'parity', status: 200, body: {} };

  it('accept inserts every column it does not set itself; the replacement carries every column it does not set', async () => {
    const first = { ...fullRow(1, await contactRows(1)), id: 9_000_001 };
    await database.transaction((tx) =>
      acceptOrder(tx, {
        order: { id: ORDER, state: 'accepted', snapshot: {}, reviewerId: 100, seats: null },
        shipment: first,
        event,
        answer,
      }),
    );
    const accepted = await readEveryWay(first.id);
    expect(accepted).toEqual({ ...first, replacedBy: null, replacedAt: null, createdAt: expect.any(Date) });

    const next = { ...fullRow(2, await contactRows(2)), id: 9_000_002 };
    await database.transaction((tx) =>
      replaceShipment(tx, { old: accepted, next, orderCompletion: null, event: { ...event, kind: 'updated' }, answer }),
    );
    const replacement = await readEveryWay(next.id);
    expect(replacement).toEqual({
      ...next,
      replacedBy: null,
      replacedAt: null,
      createdAt: expect.any(Date),
      deliveredAt: expect.any(Date),
    });
    // The tombstone is the accepted row, naming its replacement.
    expect(await findShipment(database.db, first.id)).toEqual({ ...accepted, replacedBy: next.id, replacedAt: expect.any(Date) });
  });
});
