import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDateOf } from '../../src/domain/deadline-policy.ts';
import { apiClient } from '../support/api.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER, ORDERS, SELLER, BUYER_ADDRESS } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Text that reaches a label, a page or a terminal is refused when it holds a control or a
// bidirectional-text character (400 naming the field); post office boxes are found in any
// spelling; a reissue names only the order's seats; an in-hand date does not move into the past.
// Every refusal leaves the order as it was.

const MAILED = 1500;
const PICKUP = ORDERS.localPickup;
const ISSUE = 1502;
const DATED = 1503;
const BOXED = 1504;

const ADDRESS = BUYER_ADDRESS;

describe('inputs refused as given', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture([MAILED, ISSUE, DATED, BOXED]));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const sql = () => t.db.database.sql!;
  const state = async (orderId: number) => {
    const [row] = await sql()`select o.state, o.in_hand_on::text as in_hand_on, o.deliver_by,
      (select jsonb_agg(s order by s.id) from shipments s where s.order_id = o.id) as shipments,
      (select count(*) from shipment_events where order_id = o.id)::int as events,
      (select count(*) from delivery_issues where order_id = o.id)::int as issues,
      (select count(*) from delivery_issue_responses where order_id = o.id)::int as responses,
      (select count(*) from shipment_barcodes where order_id = o.id)::int as barcodes
      from orders o where o.id = ${orderId}`;
    return row;
  };
  const shipmentOf = async (orderId: number) => {
    const res = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(res.status).toBe(200);
    return res.body.shipments[0].id as number;
  };

  it('refuses CR/LF, BEL, ANSI escapes and U+202E in an address, naming the field', async () => {
    const id = await shipmentOf(MAILED);
    const before = await state(MAILED);
    const cases: Array<[keyof typeof ADDRESS, string, RegExp]> = [
      ['street_address', '1 Main St\r\nUPS: hold at depot', /one line.*U\+000D/],
      ['name', 'Bo\u0007Buyer', /control characters \(found U\+0007\)/],
      ['locality', '\u001b[31mChicago\u001b[0m', /control characters \(found U\+001B\)/],
      ['extended_address', 'Apt \u202E4 tpA', /bidirectional-text controls \(found U\+202E\)/],
      ['region', 'IL\u2066', /bidirectional-text controls \(found U\+2066\)/],
    ];
    for (const [key, value, message] of cases) {
      const res = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
        type: 'UPS',
        ship_to_address_attributes: { ...ADDRESS, [key]: value },
      });
      expect(res.status, key).toBe(400);
      expect(res.body.errors[0], key).toMatchObject({ code: 'invalid_params', field: `ship_to_address_attributes.${key}` });
      expect(res.body.errors[0].message, key).toMatch(message);
    }
    expect(await state(MAILED)).toEqual(before);
  });

  it('refuses post office boxes for FedEx and UPS in any spelling, compared in compatibility form', async () => {
    const id = await shipmentOf(BOXED);
    const before = await state(BOXED);
    for (const spelling of ['PO-Box 12', 'P.0. Box 12', 'ＰＯ　Ｂｏｘ　１２', 'P O B 12', 'Post-Office-Box 12', 'pobox 12', 'P.O.B. 12']) {
      const res = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
        type: 'UPS',
        ship_to_address_attributes: { ...ADDRESS, street_address: spelling },
      });
      expect(res.status, spelling).toBe(422);
      expect(res.body.errors[0], spelling).toMatchObject({ code: 'address_refused', field: 'ship_to_address_attributes.street_address' });
    }
    const inExtended = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
      type: 'FedEx',
      ship_to_address_attributes: { ...ADDRESS, extended_address: 'p.o box 7' },
    });
    expect(inExtended.body.errors[0]).toMatchObject({ field: 'ship_to_address_attributes.extended_address' });
    expect(await state(BOXED)).toEqual(before);
    // Streets that merely start like one still ship.
    const street = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
      type: 'UPS',
      ship_to_address_attributes: { ...ADDRESS, street_address: '12 Pope Street', extended_address: 'Poblano Building' },
    });
    expect(street.status).toBe(200);
  });

  it('refuses controls in pickup details and notes, and keeps line breaks in notes', async () => {
    const id = await shipmentOf(PICKUP);
    const before = await state(PICKUP);
    const pickup = {
      ship_from_name: 'Acme Will Call',
      ship_from_phone_number_attributes: { country_code: '+1', number: '3125550100' },
      ship_from_address_attributes: ADDRESS,
      pickup_time_range: 'Friday 10:00-12:00',
    };
    const escaped = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { ...pickup, pickup_instructions: 'Ring twice\u001b[2J' });
    expect(escaped.status).toBe(400);
    expect(escaped.body.errors[0]).toMatchObject({ field: 'pickup_instructions' });
    const twoLines = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { ...pickup, pickup_time_range: 'Friday\n10:00' });
    expect(twoLines.body.errors[0]).toMatchObject({ field: 'pickup_time_range' });
    const loneCr = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { ...pickup, pickup_instructions: 'Ring twice\rLeave outside' });
    expect(loneCr.body.errors[0]).toMatchObject({ field: 'pickup_instructions', message: expect.stringMatching(/U\+000D/) });
    expect(await state(PICKUP)).toEqual(before);
    const lines = await call(SELLER, 'PUT', `/v9/shipments/${id}`, {
      ...pickup,
      pickup_instructions: 'Ring twice.\r\nAsk for Ann.\nThanks',
    });
    expect(lines.status, JSON.stringify(lines.body)).toBe(200);
    expect(lines.body.pickup_instructions).toBe('Ring twice.\r\nAsk for Ann.\nThanks');
  });

  it('refuses a reissue that names a seat the order does not have, and controls in issue notes', async () => {
    const { shipmentId } = await completedEticketOrder(call, ISSUE);
    const belled = await call(BUYER, 'POST', `/v9/orders/${ISSUE}/delivery_issues`, { reason: 'invalid_barcode', notes: 'gate\u0007' });
    expect(belled.status).toBe(400);
    expect(belled.body.errors[0]).toMatchObject({ field: 'notes' });
    const opened = await call(BUYER, 'POST', `/v9/orders/${ISSUE}/delivery_issues`, {
      reason: 'invalid_barcode',
      notes: 'Seat 12\nwas refused',
    });
    expect(opened.status).toBe(201);
    const before = await state(ISSUE);
    const stranger = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, {
      tickets: [
        { seat: '12', barcode: 'NEW-12' },
        { seat: '99', barcode: 'NEW-99' },
      ],
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'tickets.1.seat' });
    expect(stranger.body.errors[0].message).toMatch(/seat 99 is not on order 1502 \(its seats: 12, 13\)/);
    const bidi = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { tickets: [{ seat: '12', barcode: 'NEW\u202E21' }] });
    expect(bidi.body.errors[0]).toMatchObject({ field: 'tickets.0.barcode' });
    expect(await state(ISSUE)).toEqual(before);
    const own = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { tickets: [{ seat: '13', barcode: 'NEW-13' }] });
    expect(own.status).toBe(200);
  });

  it('refuses an in-hand date before today, in the deadline policy zone', async () => {
    await shipmentOf(DATED);
    const before = await state(DATED);
    const today = localDateOf(new Date(), 'America/New_York');
    const [y, m, d] = today.split('-').map(Number) as [number, number, number];
    const yesterday = new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
    const past = await call(SELLER, 'PUT', `/v9/orders/${DATED}`, { in_hand_on: yesterday });
    expect(past.status).toBe(400);
    expect(past.body.errors[0]).toMatchObject({
      code: 'invalid_params',
      field: 'in_hand_on',
      message: `in_hand_on: ${yesterday} lies before today (${today} in America/New_York)`,
    });
    expect(await state(DATED)).toEqual(before);
    const moved = await call(SELLER, 'PUT', `/v9/orders/${DATED}`, { in_hand_on: today });
    expect(moved.status).toBe(200);
    expect(moved.body.in_hand_on).toBe(today);
  });
});
