import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '../../src/index.ts';
import { BUYER, SELLER } from '../support/fixtures.ts';
import { inSeconds, nextInSeries, startMailedWorld, trackerEvent, type MailedWorld } from '../support/mailed-world.ts';
import { b64, makePdf } from '../support/test-files.ts';

// One envelope, one number (D-150, D-151): a tracking number belongs to one order's shipment
// across all brokerages, for good once shipped; the carrier's event goes to the envelope its
// tracker or its number names, or to no one.

const ORDER_IDS = Array.from({ length: 20 }, (_, i) => 5300 + i);
/** A UPS number with its check digit, of no other test's envelope. */
const FIRST = '1Z5R89390357567136';

describe('one envelope, one number', () => {
  let w: MailedWorld;
  beforeAll(async () => {
    w = await startMailedWorld(ORDER_IDS);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
  });

  const refusedAsInUse = (res: { status: number; body: any }, ...secrets: Array<string | number>) => {
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ code: 'tracking_number_in_use', field: 'tracking_number' });
    // Neither whose nor which order: no id, no number of the holder in the answer.
    for (const s of secrets) expect(JSON.stringify(res.body)).not.toContain(String(s));
  };

  it('a copied number is 409 tracking_number_in_use, in any spelling, by PUT, upload and the producer client; nothing changes', async () => {
    const holder = await w.mailed();
    expect((await w.setNumber(holder.id, FIRST)).status).toBe(200);
    const copier = await w.mailed();
    const before = await w.state(copier.orderId);
    const trackers = w.stub.calls.filter((c) => c.path === '/v2/trackers').length;
    for (const spelling of [FIRST, FIRST.toLowerCase(), FIRST.replace(/(.{4})/g, '$1 ')]) {
      refusedAsInUse(await w.setNumber(copier.id, spelling), holder.orderId, holder.id);
    }
    const upload = await w.call(SELLER, 'POST', `/v9/shipments/${copier.id}/airbill`, {
      airbill: b64(await makePdf(1, 'copied label')),
      tracking_number: FIRST,
    });
    refusedAsInUse(upload, holder.orderId, holder.id);
    // No tracker was registered for a number that is not this seller's.
    expect(w.stub.calls.filter((c) => c.path === '/v2/trackers').length).toBe(trackers);

    // Without the HTTP side's check, the command's claim refuses it as well.
    const client = new FulfilmentClient({ redisUrl: w.t.config.REDIS_URL, prefix: w.t.prefix, defaultTimeoutMs: 15_000 });
    try {
      const byClient = await client.setTrackingNumber({ shipment_id: copier.id, tracking_number: FIRST }, { brokerageId: 1, await: true });
      refusedAsInUse(byClient as { status: number; body: any }, holder.orderId, holder.id);
    } finally {
      await client.close();
    }
    expect(await w.state(copier.orderId)).toEqual(before);
    expect(await w.state(holder.orderId)).toMatchObject({ tracking: FIRST });
  });

  it('the next number of a series is refused once another envelope holds it; a USPS number with its routing prefix is the same envelope', async () => {
    const next = nextInSeries(FIRST);
    expect(next).not.toBe(FIRST);
    const a = await w.mailed();
    expect((await w.setNumber(a.id, next)).status).toBe(200);
    const guesser = await w.mailed();
    refusedAsInUse(await w.setNumber(guesser.id, next), a.orderId, a.id);
    const own = nextInSeries(next);
    expect((await w.setNumber(guesser.id, own)).status).toBe(200);

    const usps = '9400111202555842332669';
    const mailer = await w.mailed('USPS');
    expect((await w.setNumber(mailer.id, usps)).status).toBe(200);
    const other = await w.mailed('USPS');
    refusedAsInUse(await w.setNumber(other.id, `42060601${usps}`), mailer.orderId, mailer.id);
  });

  it("a delivered envelope's number is never another's; a number changed before shipping is free again and its scans match no one", async () => {
    const code = nextInSeries(nextInSeries(nextInSeries(FIRST)));
    const first = await w.mailed();
    expect((await w.setNumber(first.id, code)).status).toBe(200);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${first.id}/complete`, {})).status).toBe(200);
    const delivered = await w.webhook(
      trackerEvent({
        eventId: 'evt_claims_delivered',
        trackerId: (await w.trackerOf(first.id))!,
        code,
        scans: [{ status: 'delivered', datetime: inSeconds(0) }],
      }),
    );
    expect(await delivered.json()).toMatchObject({ taken: true, shipment_id: first.id });
    expect(await w.state(first.orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
    const later = await w.mailed();
    refusedAsInUse(await w.setNumber(later.id, code, false), first.orderId, first.id);

    // Changed while pending: the old number is released and a later event about it changes nothing.
    const changer = await w.mailed();
    const dropped = nextInSeries(code);
    expect((await w.setNumber(changer.id, dropped, false)).status).toBe(200);
    expect((await w.setNumber(changer.id, nextInSeries(dropped), false)).status).toBe(200);
    const stray = await w.webhook(
      trackerEvent({
        eventId: 'evt_claims_stray',
        trackerId: 'trk_nobody',
        code: dropped,
        scans: [{ status: 'delivered', datetime: inSeconds(0) }],
      }),
    );
    expect(stray.status).toBe(200);
    expect(await stray.json()).toMatchObject({ taken: false, shipment_id: null });
    expect(await w.state(changer.orderId)).toMatchObject({ order: 'accepted', shipment: 'pending' });
    const [kept] = await w.sql()`select outcome, scans from carrier_events where event_id = 'evt_claims_stray'`;
    expect(kept).toMatchObject({ outcome: 'unknown_tracking_code', scans: [{ status: 'delivered' }] });
    // Free for another envelope now.
    const taker = await w.mailed();
    expect((await w.setNumber(taker.id, dropped, false)).status).toBe(200);
  });

  it('two orders claiming one number at once: one holds it, the other is 409', async () => {
    const code = nextInSeries(nextInSeries(nextInSeries(nextInSeries(nextInSeries(nextInSeries(FIRST))))));
    const a = await w.mailed();
    const b = await w.mailed();
    const answers = await Promise.all([w.setNumber(a.id, code, false), w.setNumber(b.id, code, false)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const [row] = await w.sql()`select count(*)::int as n from shipments where tracking_number = ${code} and replaced_by is null`;
    expect(row!.n).toBe(1);
  });

  it("the carrier's tracker id decides before the number: an event naming a tracker goes to that tracker's envelope", async () => {
    const code = '1Z999AA10123456784';
    const a = await w.mailed();
    expect((await w.setNumber(a.id, code)).status).toBe(200);
    const tracker = await w.trackerOf(a.id);
    expect(tracker).toBe(`trk_${code.toLowerCase()}`);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${a.id}/complete`, {})).status).toBe(200);
    // The carrier names the envelope by a reference of its own (a barcode's longer form, say): the tracker decides.
    const res = await w.webhook(
      trackerEvent({
        eventId: 'evt_claims_tracker',
        trackerId: tracker!,
        code: '9622001900000000000000123456784',
        scans: [{ status: 'out_for_delivery', datetime: inSeconds(0) }],
      }),
    );
    expect(await res.json()).toMatchObject({ taken: true, shipment_id: a.id, recorded: 1 });
    const list = await w.call(BUYER, 'GET', `/v9/shipments/${a.id}/tracking_events`);
    expect(list.body.tracking_events.map((e: any) => [e.source, e.status])).toEqual([['carrier', 'out_for_delivery']]);
  });
});
