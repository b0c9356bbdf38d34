import { describe, expect, it } from 'vitest';
import { getShortestPaths, getSimplePaths } from 'xstate/graph';
import { MAILED_TYPES, TRACKING_STATUSES } from '@fulfil/contract';
import {
  MOBILE_TRANSFER_TYPES,
  applyShipmentEvent,
  initialShipmentSnapshot,
  shipmentMachine,
  shipmentView,
  stateValueString,
  type PersistedShipment,
  type ShipmentEvent,
  type ShipmentInput,
} from '../../machines/shipment.ts';

// Every concrete event the service can send: the graph walk only explores what it is given.
const EVENTS: Record<string, ShipmentEvent> = {
  ...Object.fromEntries(MOBILE_TRANSFER_TYPES.map((t) => [`MT:${t}`, { type: 'MOBILE_TRANSFER', transferType: t }])),
  SELLER: { type: 'SELLER_PICKUP' },
  BUYER: { type: 'BUYER_PICKUP' },
  'COMPLETE:link': { type: 'COMPLETE', hasLink: true },
  'COMPLETE:nolink': { type: 'COMPLETE', hasLink: false },
  CANCEL: { type: 'CANCEL' },
  ...Object.fromEntries(MAILED_TYPES.map((t) => [`MAIL:${t}`, { type: 'MAIL', mailType: t }])),
  'SHIP:tracked': { type: 'SHIP', hasTracking: true },
  'SHIP:untracked': { type: 'SHIP', hasTracking: false },
  ...Object.fromEntries(TRACKING_STATUSES.map((status) => [`SCAN:${status}`, { type: 'SCAN', status }])),
  RESHIP: { type: 'RESHIP' },
  ...Object.fromEntries(MOBILE_TRANSFER_TYPES.map((t) => [`SW:${t}`, { type: 'SWITCH_ELECTRONIC', transferType: t }])),
};
const ALL_EVENTS = Object.values(EVENTS);
// The walk of every simple path grows with each event that leads somewhere new: one mailed type
// and one carrying scan stand for the others (they lead through the same states; the table below
// checks each one).
const PATH_EVENTS = Object.entries(EVENTS)
  .filter(([label]) => !/^MAIL:(?!UPS)|^SCAN:out_for_delivery|^(MT|SW):(XMobileLink|Eticket)/.test(label))
  .map(([, e]) => e);
const INPUTS: ShipmentInput[] = [{ type: 'TBD' }, { type: 'XSeats' }, { type: 'LocalPickup' }];

// Applies events that must all be accepted; a refusal here is a broken precondition, not a case.
function drive(input: ShipmentInput, ...labels: string[]): PersistedShipment {
  let snapshot = initialShipmentSnapshot(input);
  for (const label of labels) {
    const result = applyShipmentEvent(snapshot, EVENTS[label]!);
    if (!result.ok) throw new Error(`setup step ${label} refused: ${result.reason}`);
    snapshot = result.snapshot;
  }
  return snapshot;
}
const at = (s: PersistedShipment) => `${shipmentView(s).stateValue}/${shipmentView(s).type}`;

const PICKUP = 'localPickup(seller.awaiting,buyer.awaiting)';
const SELLER_ONLY = 'localPickup(seller.supplied,buyer.awaiting)';
const BUYER_ONLY = 'localPickup(seller.awaiting,buyer.supplied)';
const MAILED_STATES = ['in_transit', 'exception', 'returned'];
const REACHABLE: Record<ShipmentInput['type'], string[]> = {
  TBD: ['tbd', 'pending', 'delivered', 'canceled', ...MAILED_STATES],
  XSeats: ['pending', 'delivered', 'canceled', ...MAILED_STATES],
  LocalPickup: [PICKUP, SELLER_ONLY, BUYER_ONLY, 'pending', 'delivered', 'canceled', ...MAILED_STATES],
};

describe.each(INPUTS)('graph paths from $type', (input) => {
  const generators = { getShortestPaths, getSimplePaths };
  it.each(Object.keys(generators) as (keyof typeof generators)[])('%s replay through applyShipmentEvent', (name) => {
    const paths = generators[name](shipmentMachine, { events: PATH_EVENTS, input });
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      let snapshot = initialShipmentSnapshot(input);
      // Step 0 is the graph's synthetic init step (the initial state); the rest are real events.
      expect(path.steps[0]?.event.type as string).toBe('xstate.init');
      for (const [index, step] of path.steps.entries()) {
        if (index > 0) {
          const result = applyShipmentEvent(snapshot, step.event);
          expect(result.ok, JSON.stringify(step.event)).toBe(true);
          if (result.ok) snapshot = result.snapshot;
        }
        expect(stateValueString(snapshot.value)).toBe(stateValueString(step.state.value));
        expect(snapshot.context).toEqual(step.state.context);
      }
      expect(stateValueString(snapshot.value)).toBe(stateValueString(path.state.value));
    }
    const reached = new Set(paths.map((p) => stateValueString(p.state.value)));
    expect([...reached].sort()).toEqual([...REACHABLE[input.type]].sort());
  });
});

describe('initial snapshots', () => {
  it.each([
    [{ type: 'TBD' } as const, 'tbd/TBD'],
    [{ type: 'XSeats' } as const, 'pending/XSeats'],
    [{ type: 'LocalPickup' } as const, `${PICKUP}/LocalPickup`],
  ])('%o starts at %s, API state pending', (input, expected) => {
    const snapshot = initialShipmentSnapshot(input);
    expect(at(snapshot)).toBe(expected);
    expect(shipmentView(snapshot).state).toBe('pending');
  });
});

describe('local pickup join', () => {
  it.each([
    ['seller then buyer', 'SELLER', 'BUYER'],
    ['buyer then seller', 'BUYER', 'SELLER'],
  ])('%s ends delivered', (_name, first, second) => {
    const half = drive({ type: 'LocalPickup' }, first);
    expect(shipmentView(half).state).toBe('pending');
    const done = drive({ type: 'LocalPickup' }, first, second);
    expect(shipmentView(done)).toEqual({
      type: 'LocalPickup',
      state: 'delivered',
      sellerSupplied: true,
      buyerSupplied: true,
      stateValue: 'delivered',
    });
    // Stored: the state value and the context; a final state takes no event.
    expect(Object.keys(done).sort()).toEqual(['context', 'value']);
    for (const event of Object.values(EVENTS)) expect(applyShipmentEvent(done, event).ok).toBe(false);
  });

  it("reads a snapshot stored whole (getPersistedSnapshot's output, as rows written before keep it) as value and context", () => {
    const half = drive({ type: 'LocalPickup' }, 'SELLER');
    const whole = shipmentMachine.getPersistedSnapshot(
      shipmentMachine.resolveState({ value: half.value, context: half.context }),
    ) as unknown as PersistedShipment;
    expect(whole).toHaveProperty('status', 'active');
    expect(shipmentView(whole)).toEqual(shipmentView(half));
    expect(applyShipmentEvent(whole, EVENTS.BUYER!)).toEqual(applyShipmentEvent(half, EVENTS.BUYER!));
  });

  it('accepts seller resubmission before the buyer supplies, then delivers on buyer', () => {
    const once = drive({ type: 'LocalPickup' }, 'SELLER');
    const again = applyShipmentEvent(once, EVENTS.SELLER!);
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(again.view.stateValue).toBe(SELLER_ONLY);
    const done = applyShipmentEvent(again.snapshot, EVENTS.BUYER!);
    expect(done.ok && done.view.state).toBe('delivered');
  });

  it('accepts buyer resubmission and keeps the seller region untouched', () => {
    const s = drive({ type: 'LocalPickup' }, 'BUYER', 'BUYER', 'BUYER');
    expect(shipmentView(s)).toMatchObject({ stateValue: BUYER_ONLY, sellerSupplied: false, buyerSupplied: true });
  });

  it('rehydrates a JSON round-tripped snapshot mid-join to the same state', () => {
    const half = drive({ type: 'LocalPickup' }, 'SELLER');
    const stored: PersistedShipment = JSON.parse(JSON.stringify(half));
    expect(stored).toEqual(half);
    expect(shipmentView(stored)).toEqual(shipmentView(half));
    const done = applyShipmentEvent(stored, EVENTS.BUYER!);
    expect(done.ok && done.view.state).toBe('delivered');
    const twice: PersistedShipment = JSON.parse(JSON.stringify(done.ok ? done.snapshot : null));
    expect(applyShipmentEvent(twice, EVENTS.SELLER!).ok).toBe(false);
  });
});

// For each state: the events that are allowed and where they lead ("stateValue/type");
// every other event in EVENTS must be refused.
const transfers = (leadsTo: string, types: readonly string[] = MOBILE_TRANSFER_TYPES): Record<string, string> =>
  Object.fromEntries(types.map((t) => [`MT:${t}`, `${leadsTo}/${t}`]));
// A lost envelope switched to an electronic delivery by a reissue (D-159): a pending shipment of that type.
const switches = (): Record<string, string> => Object.fromEntries(MOBILE_TRANSFER_TYPES.map((t) => [`SW:${t}`, `pending/${t}`]));
const mails = (leadsTo: string): Record<string, string> => Object.fromEntries(MAILED_TYPES.map((t) => [`MAIL:${t}`, `${leadsTo}/${t}`]));
// A mailed shipment of each type: pending until shipped or scanned, then moved by scans only.
type Row = { name: string; from: () => PersistedShipment; allowed: Record<string, string> };
const MAILED_ROWS = MAILED_TYPES.flatMap((t): Row[] => [
  {
    name: `pending ${t}`,
    from: () => drive({ type: 'TBD' }, `MAIL:${t}`),
    allowed: {
      ...transfers('pending'),
      ...mails('pending'),
      'SHIP:tracked': `in_transit/${t}`,
      'SCAN:in_transit': `in_transit/${t}`,
      'SCAN:out_for_delivery': `in_transit/${t}`,
      'SCAN:delivered': `delivered/${t}`,
      'SCAN:exception': `exception/${t}`,
      'SCAN:returned': `returned/${t}`,
      CANCEL: `canceled/${t}`,
    },
  },
  {
    name: `in_transit ${t}`,
    from: () => drive({ type: 'TBD' }, `MAIL:${t}`, 'SHIP:tracked'),
    allowed: {
      ...switches(),
      'SCAN:delivered': `delivered/${t}`,
      'SCAN:exception': `exception/${t}`,
      'SCAN:returned': `returned/${t}`,
      CANCEL: `canceled/${t}`,
    },
  },
  {
    name: `exception ${t}`,
    from: () => drive({ type: 'TBD' }, `MAIL:${t}`, 'SHIP:tracked', 'SCAN:exception'),
    allowed: {
      ...switches(),
      RESHIP: `in_transit/${t}`,
      'SCAN:in_transit': `in_transit/${t}`,
      'SCAN:out_for_delivery': `in_transit/${t}`,
      'SCAN:delivered': `delivered/${t}`,
      'SCAN:returned': `returned/${t}`,
      CANCEL: `canceled/${t}`,
    },
  },
  {
    name: `returned ${t}`,
    from: () => drive({ type: 'TBD' }, `MAIL:${t}`, 'SCAN:returned'),
    allowed: { ...transfers('pending'), ...switches(), ...mails('pending'), RESHIP: `in_transit/${t}`, CANCEL: `canceled/${t}` },
  },
]);
const TABLE: { name: string; from: () => PersistedShipment; allowed: Record<string, string> }[] = [
  ...MAILED_ROWS,
  { name: 'tbd', from: () => drive({ type: 'TBD' }), allowed: { ...transfers('pending'), ...mails('pending'), CANCEL: 'canceled/TBD' } },
  {
    name: 'pending XMobile',
    from: () => drive({ type: 'TBD' }, 'MT:XMobile'),
    allowed: {
      ...transfers('pending'),
      ...mails('pending'),
      'COMPLETE:link': 'delivered/XMobile',
      'COMPLETE:nolink': 'delivered/XMobile',
      CANCEL: 'canceled/XMobile',
    },
  },
  {
    name: 'pending XMobileLink',
    from: () => drive({ type: 'TBD' }, 'MT:XMobileLink'),
    allowed: { ...transfers('pending'), ...mails('pending'), 'COMPLETE:link': 'delivered/XMobileLink', CANCEL: 'canceled/XMobileLink' },
  },
  {
    name: 'pending XSeats',
    from: () => drive({ type: 'XSeats' }),
    allowed: { ...transfers('pending'), ...mails('pending'), 'COMPLETE:nolink': 'delivered/XSeats', CANCEL: 'canceled/XSeats' },
  },
  {
    name: 'pending Eticket',
    from: () => drive({ type: 'TBD' }, 'MT:Eticket'),
    allowed: { ...transfers('pending'), ...mails('pending'), 'COMPLETE:nolink': 'delivered/Eticket', CANCEL: 'canceled/Eticket' },
  },
  {
    name: 'localPickup, neither supplied',
    from: () => drive({ type: 'LocalPickup' }),
    allowed: {
      ...transfers('pending', ['XMobile', 'XSeats']),
      SELLER: `${SELLER_ONLY}/LocalPickup`,
      BUYER: `${BUYER_ONLY}/LocalPickup`,
      CANCEL: 'canceled/LocalPickup',
    },
  },
  {
    name: 'localPickup, seller supplied',
    from: () => drive({ type: 'LocalPickup' }, 'SELLER'),
    allowed: {
      ...transfers('pending', ['XMobile', 'XSeats']),
      SELLER: `${SELLER_ONLY}/LocalPickup`,
      BUYER: 'delivered/LocalPickup',
      CANCEL: 'canceled/LocalPickup',
    },
  },
  {
    name: 'localPickup, buyer supplied',
    from: () => drive({ type: 'LocalPickup' }, 'BUYER'),
    allowed: {
      ...transfers('pending', ['XMobile', 'XSeats']),
      SELLER: 'delivered/LocalPickup',
      BUYER: `${BUYER_ONLY}/LocalPickup`,
      CANCEL: 'canceled/LocalPickup',
    },
  },
  { name: 'delivered (completed)', from: () => drive({ type: 'XSeats' }, 'COMPLETE:nolink'), allowed: {} },
  { name: 'delivered (picked up)', from: () => drive({ type: 'LocalPickup' }, 'SELLER', 'BUYER'), allowed: {} },
  { name: 'canceled', from: () => drive({ type: 'XSeats' }, 'CANCEL'), allowed: {} },
  { name: 'delivered (scanned)', from: () => drive({ type: 'TBD' }, 'MAIL:UPS', 'SHIP:tracked', 'SCAN:delivered'), allowed: {} },
];
const CASES = TABLE.flatMap((row) =>
  Object.keys(EVENTS).map((label) => ({ row: row.name, from: row.from, label, expected: row.allowed[label] })),
);

describe('allowed and refused events per state', () => {
  // Checked against the machine itself, not the table: a state or an event the machine gains
  // and the table lacks fails here.
  it('table covers every reachable state and every event the machine takes', () => {
    const reachable = INPUTS.flatMap((input) =>
      getShortestPaths(shipmentMachine, { events: ALL_EVENTS, input }).map(
        (p) => `${stateValueString(p.state.value)}/${p.state.context.type}`,
      ),
    );
    const rows = TABLE.map((row) => at(row.from()));
    const stateOf = (key: string) => key.slice(0, key.lastIndexOf('/'));
    expect(new Set(rows).size).toBe(rows.length);
    expect(new Set(rows.map(stateOf))).toEqual(new Set(reachable.map(stateOf)));
    // Outside delivered and canceled (final, take nothing) the type decides what is allowed: every pair counts.
    const live = (keys: string[]) => new Set(keys.filter((k) => stateOf(k) !== 'delivered' && stateOf(k) !== 'canceled'));
    expect(live(rows)).toEqual(live(reachable));

    const machineEvents = shipmentMachine.events.filter((type) => !type.startsWith('xstate.'));
    expect(new Set(ALL_EVENTS.map((e) => e.type))).toEqual(new Set(machineEvents));
    const transferTypes = ALL_EVENTS.flatMap((e) => (e.type === 'MOBILE_TRANSFER' ? [e.transferType] : []));
    expect(new Set(transferTypes)).toEqual(new Set(MOBILE_TRANSFER_TYPES));
    expect(new Set(ALL_EVENTS.flatMap((e) => (e.type === 'COMPLETE' ? [e.hasLink] : [])))).toEqual(new Set([true, false]));
    for (const row of TABLE) for (const label of Object.keys(row.allowed)) expect(EVENTS, row.name).toHaveProperty([label]);
  });

  it.each(CASES)('$row: $label → $expected', ({ from, label, expected }) => {
    const before = from();
    const result = applyShipmentEvent(before, EVENTS[label]!);
    if (expected === undefined) {
      expect(result.ok).toBe(false);
      const view = shipmentView(before);
      expect(result.view).toEqual(view);
      if (!result.ok) expect(result.reason).toContain(`shipment is ${view.type} (${view.state})`);
    } else {
      expect(result.ok).toBe(true);
      if (result.ok) expect(at(result.snapshot)).toBe(expected);
    }
  });
});
