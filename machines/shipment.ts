// Shipment lifecycle as a pure XState v5 machine. Workers never touch xstate directly: they
// rehydrate a persisted snapshot (jsonb), apply one event, and persist the result through the
// helpers at the bottom. No actions other than assign, so `transition` never yields effects.
import { assign, getInitialSnapshot, not, or, setup, stateIn, transition, type StateValue } from 'xstate';
import { memoized } from './memo.ts';

import {
  isMailedType,
  SHIPMENT_STATES,
  SHIPMENT_TYPES,
  type MailedType,
  type ShipmentState,
  type ShipmentType,
  type TrackingStatus,
} from '@fulfil/contract';

export { SHIPMENT_STATES, SHIPMENT_TYPES, type ShipmentType };
export const MOBILE_TRANSFER_TYPES = ['XMobile', 'XMobileLink', 'XSeats', 'Eticket'] as const;
export type MobileTransferType = (typeof MOBILE_TRANSFER_TYPES)[number];

/** What accepting an order can create (docs/API.md §Orders). */
export type ShipmentInput = { type: 'TBD' | 'XSeats' | 'LocalPickup' };
export type ShipmentContext = {
  type: ShipmentType;
  // Whose pickup details arrived last. Its real job: a resubmission must be an accepted
  // transition, and xstate's `can()` treats a transition with no target and no action as
  // forbidden — this assign gives resubmission an effect without re-entering any region.
  lastPickupBy: 'seller' | 'buyer' | null;
};
export type ShipmentEvent =
  | { type: 'MOBILE_TRANSFER'; transferType: MobileTransferType }
  | { type: 'SELLER_PICKUP' }
  | { type: 'BUYER_PICKUP' }
  | { type: 'COMPLETE'; hasLink: boolean }
  // Mailed delivery (docs/LIFECYCLE.md §Mailed tickets): the seller chooses a carrier, ships the
  // envelope (complete, with a tracking number), and tracking events move it on.
  | { type: 'MAIL'; mailType: MailedType }
  | { type: 'SHIP'; hasTracking: boolean }
  | { type: 'SCAN'; status: TrackingStatus }
  // A lost envelope replaced by a new one (a reissue while a delivery issue is open): carried
  // again. Only mailed shipments reach exception and returned; one in transit stays so.
  | { type: 'RESHIP' }
  // A lost envelope replaced by an electronic delivery (the same reissue, D-159): a new method,
  // pending until the seller delivers it, from any state a lost envelope can be in.
  | { type: 'SWITCH_ELECTRONIC'; transferType: MobileTransferType }
  // The order was canceled by both parties (machines/order.ts): the shipment will not be delivered.
  | { type: 'CANCEL' };

export const shipmentMachine = setup({
  types: {} as { context: ShipmentContext; events: ShipmentEvent; input: ShipmentInput },
  guards: {
    // CANCEL is the machine's own transition; a finished shipment stays as it ended.
    unfinished: not(or([stateIn('#shipment.delivered'), stateIn('#shipment.canceled')])),
    // "A seller may change any order to XMobile or XSeats" — the only way out of LocalPickup.
    leavesPickup: ({ event }) => event.type === 'MOBILE_TRANSFER' && (event.transferType === 'XMobile' || event.transferType === 'XSeats'),
    // docs/API.md §Shipments, complete: XMobileLink needs a link, XSeats/Eticket take no body, XMobile either.
    // Complete on a mailed shipment means shipped, and needs the envelope's tracking number.
    shipsTracked: ({ context, event }) => isMailedType(context.type) && event.type === 'SHIP' && event.hasTracking,
    // A mailed shipment is carried from the first scan on, shipped by the seller or not.
    carried: ({ context, event }) =>
      isMailedType(context.type) && event.type === 'SCAN' && (event.status === 'in_transit' || event.status === 'out_for_delivery'),
    scanDelivered: ({ context, event }) => isMailedType(context.type) && event.type === 'SCAN' && event.status === 'delivered',
    scanException: ({ context, event }) => isMailedType(context.type) && event.type === 'SCAN' && event.status === 'exception',
    scanReturned: ({ context, event }) => isMailedType(context.type) && event.type === 'SCAN' && event.status === 'returned',
    linkFitsType: ({ context, event }) => {
      if (event.type !== 'COMPLETE') return false;
      if (isMailedType(context.type)) return false;
      if (context.type === 'XMobileLink') return event.hasLink;
      if (context.type === 'XSeats' || context.type === 'Eticket') return !event.hasLink;
      return context.type === 'XMobile';
    },
  },
  actions: {
    takeTransferType: assign(({ event }) =>
      event.type === 'MOBILE_TRANSFER' || event.type === 'SWITCH_ELECTRONIC' ? { type: event.transferType, lastPickupBy: null } : {},
    ),
    takeMailType: assign(({ event }) => (event.type === 'MAIL' ? { type: event.mailType, lastPickupBy: null } : {})),
    sellerSupplied: assign({ lastPickupBy: 'seller' as const }),
    buyerSupplied: assign({ lastPickupBy: 'buyer' as const }),
  },
}).createMachine({
  id: 'shipment',
  context: ({ input }) => ({ type: input.type, lastPickupBy: null }),
  // The starting state depends on input, which `initial` cannot express; this transient
  // state is resolved inside the initial macrostep, so no snapshot ever rests in it.
  initial: 'start',
  // From any state not final (the guard: a transition of the machine itself applies in every state).
  on: { CANCEL: { guard: 'unfinished', target: '.canceled' } },
  states: {
    start: {
      always: [
        { guard: ({ context }) => context.type === 'TBD', target: 'tbd' },
        { guard: ({ context }) => context.type === 'LocalPickup', target: 'localPickup' },
        { target: 'pending' },
      ],
    },
    tbd: {
      on: {
        MOBILE_TRANSFER: { target: 'pending', actions: 'takeTransferType' },
        MAIL: { target: 'pending', actions: 'takeMailType' },
      },
    },
    pending: {
      on: {
        MOBILE_TRANSFER: { actions: 'takeTransferType' },
        MAIL: { actions: 'takeMailType' },
        COMPLETE: { guard: 'linkFitsType', target: 'delivered' },
        SHIP: { guard: 'shipsTracked', target: 'in_transit' },
        SCAN: [
          { guard: 'carried', target: 'in_transit' },
          { guard: 'scanDelivered', target: 'delivered' },
          { guard: 'scanException', target: 'exception' },
          { guard: 'scanReturned', target: 'returned' },
        ],
      },
    },
    // Mailed only. A scan that says what the state already is moves nothing (recorded, no transition).
    in_transit: {
      on: {
        SWITCH_ELECTRONIC: { target: 'pending', actions: 'takeTransferType' },
        SCAN: [
          { guard: 'scanDelivered', target: 'delivered' },
          { guard: 'scanException', target: 'exception' },
          { guard: 'scanReturned', target: 'returned' },
        ],
      },
    },
    exception: {
      on: {
        RESHIP: 'in_transit',
        SWITCH_ELECTRONIC: { target: 'pending', actions: 'takeTransferType' },
        SCAN: [
          { guard: 'carried', target: 'in_transit' },
          { guard: 'scanDelivered', target: 'delivered' },
          { guard: 'scanReturned', target: 'returned' },
        ],
      },
    },
    // The envelope went back to the seller: no scan moves it again; the seller may mail it anew.
    returned: {
      on: {
        RESHIP: 'in_transit',
        SWITCH_ELECTRONIC: { target: 'pending', actions: 'takeTransferType' },
        MAIL: { target: 'pending', actions: 'takeMailType' },
        MOBILE_TRANSFER: { target: 'pending', actions: 'takeTransferType' },
      },
    },
    localPickup: {
      type: 'parallel',
      // Resubmissions land here: a supplied region is final and has no transitions of its own,
      // so the event bubbles up. Targetless on purpose — targeting `.seller.supplied` from the
      // parallel parent would exit and re-enter the other region, losing its progress.
      on: {
        SELLER_PICKUP: { actions: 'sellerSupplied' },
        BUYER_PICKUP: { actions: 'buyerSupplied' },
        MOBILE_TRANSFER: { guard: 'leavesPickup', target: 'pending', actions: 'takeTransferType' },
      },
      states: {
        seller: {
          initial: 'awaiting',
          states: {
            awaiting: { on: { SELLER_PICKUP: { target: 'supplied', actions: 'sellerSupplied' } } },
            supplied: { type: 'final' },
          },
        },
        buyer: {
          initial: 'awaiting',
          states: {
            awaiting: { on: { BUYER_PICKUP: { target: 'supplied', actions: 'buyerSupplied' } } },
            supplied: { type: 'final' },
          },
        },
      },
      onDone: { target: 'delivered' },
    },
    delivered: { type: 'final' },
    canceled: { type: 'final' },
  },
});

/**
 * The JSON object stored in the jsonb column: of `getPersistedSnapshot`'s output, the state value
 * and the context, which is all rehydration reads (docs/DECISIONS.md D-138; the order machine's
 * PersistedOrder says why the rest is left out). Rows written before keep the whole output.
 */
export interface PersistedShipment {
  readonly value: StateValue;
  readonly context: ShipmentContext;
  readonly [key: string]: unknown;
}

export type ShipmentView = {
  type: ShipmentType;
  state: ShipmentState;
  sellerSupplied: boolean;
  buyerSupplied: boolean;
  /** e.g. "tbd", "pending", "delivered", "localPickup(seller.supplied,buyer.awaiting)". */
  stateValue: string;
};

export type ShipmentResult =
  { ok: true; snapshot: PersistedShipment; view: ShipmentView } | { ok: false; view: ShipmentView; reason: string };

type ShipmentSnapshot = ReturnType<typeof shipmentMachine.resolveState>;

function persist(snapshot: ShipmentSnapshot): PersistedShipment {
  const { value, context } = shipmentMachine.getPersistedSnapshot(snapshot) as unknown as PersistedShipment;
  return { value, context };
}

// Only value and context matter (no history, no children), so resolveState is a full rehydration.
function rehydrate(persisted: PersistedShipment): ShipmentSnapshot {
  if (!SHIPMENT_TYPES.includes(persisted.context?.type)) {
    throw new Error(`persisted shipment has no valid type: ${JSON.stringify(persisted.context)}`);
  }
  return shipmentMachine.resolveState({ value: persisted.value, context: persisted.context });
}

export function stateValueString(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, child]) => (typeof child === 'string' ? `${key}.${child}` : `${key}(${stateValueString(child as StateValue)})`))
    .join(',');
}

export const initialShipmentSnapshot: (input: ShipmentInput) => PersistedShipment = memoized(
  (input) => input.type,
  (input) => persist(getInitialSnapshot(shipmentMachine, { type: input.type })),
);

/** Everything rehydrate reads of a persisted shipment: its state value and context. */
const snapshotKey = (persisted: PersistedShipment) => JSON.stringify([persisted.value, persisted.context]);

export const shipmentView: (persisted: PersistedShipment) => ShipmentView = memoized(snapshotKey, viewOf);

function viewOf(persisted: PersistedShipment): ShipmentView {
  const snapshot = rehydrate(persisted);
  const delivered = snapshot.matches('delivered');
  const canceled = snapshot.matches('canceled');
  const mailedState = (['in_transit', 'exception', 'returned'] as const).find((s) => snapshot.matches(s));
  // A LocalPickup shipment can only reach delivered through both parties supplying.
  const pickupDone = delivered && snapshot.context.type === 'LocalPickup';
  return {
    type: snapshot.context.type,
    state: delivered ? 'delivered' : canceled ? 'canceled' : (mailedState ?? 'pending'),
    sellerSupplied: pickupDone || snapshot.matches({ localPickup: { seller: 'supplied' } }),
    buyerSupplied: pickupDone || snapshot.matches({ localPickup: { buyer: 'supplied' } }),
    stateValue: stateValueString(snapshot.value),
  };
}

function refusal(view: ShipmentView, event: ShipmentEvent): string {
  let what: string;
  switch (event.type) {
    case 'MOBILE_TRANSFER':
      what = `be changed to ${event.transferType}`;
      break;
    case 'SWITCH_ELECTRONIC':
      what = `switch from its envelope to ${event.transferType} (only one in transit, in exception or returned)`;
      break;
    case 'SELLER_PICKUP':
      what = 'take seller local pickup details';
      break;
    case 'BUYER_PICKUP':
      what = 'take buyer local pickup details';
      break;
    case 'COMPLETE':
      // Only a pending mobile shipment is refused for its link; say so, the state alone won't.
      what = view.stateValue !== 'pending' ? 'be completed' : `be completed ${event.hasLink ? 'with' : 'without'} a link`;
      break;
    case 'MAIL':
      what = `be mailed by ${event.mailType}`;
      break;
    case 'SHIP':
      what = event.hasTracking ? 'be shipped' : 'be shipped without a tracking number';
      break;
    case 'SCAN':
      what = `move on a ${event.status} tracking event`;
      break;
    case 'RESHIP':
      what = 'be re-shipped in a new envelope (only one in exception or returned; one in transit stays so)';
      break;
    case 'CANCEL':
      what = 'be canceled';
  }
  return `shipment is ${view.type} (${view.state}); it cannot ${what}`;
}

export const applyShipmentEvent: (persisted: PersistedShipment, event: ShipmentEvent) => ShipmentResult = memoized(
  (persisted, event) => `${snapshotKey(persisted)}${JSON.stringify(event)}`,
  apply,
);

function apply(persisted: PersistedShipment, event: ShipmentEvent): ShipmentResult {
  const snapshot = rehydrate(persisted);
  // can() evaluates guards and reports false for "no transition" as well as for a delivered
  // (done) snapshot, on which `transition` would silently return the same snapshot.
  if (!snapshot.can(event)) {
    const view = shipmentView(persisted);
    return { ok: false, view, reason: refusal(view, event) };
  }
  const [next] = transition(shipmentMachine, snapshot, event);
  const saved = persist(next);
  return { ok: true, snapshot: saved, view: shipmentView(saved) };
}
