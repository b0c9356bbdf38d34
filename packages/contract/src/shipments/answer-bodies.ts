import type { z } from 'zod';
import type { acceptedOrder, completedShipment, orderAnswer, updatedShipment } from './shipment-answers.ts';
import type { shipmentWithEtickets, transferVerificationAnswer } from './file-answers.ts';
import type { deliveryIssue, reissueAnswer } from './delivery-issue-answers.ts';
import type { hold } from './hold-answers.ts';
import type { airbillAnswer, carrierUpdateAnswer, mailedShipmentAnswer, trackingEventAnswer } from './mailed-answers.ts';
import type {
  ErrorBody,
  Forbidden,
  IdempotencyConflict,
  DeliveryIssueConflict,
  InvalidParams,
  InvalidTransition,
  NotFound,
  ShipmentReplaced,
  Unauthorized,
  AddressRefused,
  TrackingNumberInUse,
} from '../errors.ts';
import type { JobName } from '../jobs/job-map.ts';

/** What each command answers when it succeeds (200): the body the synchronous HTTP call gives. */
export interface AnswerBodies {
  'order.accept': z.output<typeof acceptedOrder>;
  'order.reject': z.output<typeof orderAnswer>;
  'order.cancel': z.output<typeof orderAnswer>;
  'order.withdraw_cancel': z.output<typeof orderAnswer>;
  'order.confirm_receipt': z.output<typeof orderAnswer>;
  'order.update': z.output<typeof orderAnswer>;
  'shipment.update': z.output<typeof updatedShipment> | z.output<typeof mailedShipmentAnswer>;
  'shipment.complete': z.output<typeof completedShipment> | z.output<typeof mailedShipmentAnswer>;
  'shipment.etickets': z.output<typeof shipmentWithEtickets>;
  'shipment.transfer_verification': z.output<typeof transferVerificationAnswer>;
  'shipment.airbill': z.output<typeof airbillAnswer>;
  'shipment.tracking_number': z.output<typeof mailedShipmentAnswer>;
  'shipment.tracking_event': z.output<typeof trackingEventAnswer>;
  'shipment.carrier_update': z.output<typeof carrierUpdateAnswer>;
  'inventory.upsert': { upserted: number };
  'inventory.map': { mapped: number; unmapped: number };
  'inventory.remove': { removed: number };
  /** Answered with 201 (the issue is new). */
  'delivery_issue.open': z.output<typeof deliveryIssue>;
  'delivery_issue.respond': z.output<typeof deliveryIssue>;
  'delivery_issue.resolve': z.output<typeof deliveryIssue>;
  'delivery_issue.escalate': z.output<typeof deliveryIssue>;
  'delivery_issue.close': z.output<typeof deliveryIssue>;
  'shipment.reissue': z.output<typeof reissueAnswer>;
  /** Answered with 201 (a new hold), 200 when the handle named an existing one. */
  'order.hold_place': z.output<typeof hold>;
  'hold.release': z.output<typeof hold>;
  'hold.answer': z.output<typeof hold>;
}

/**
 * The statuses a worker answers a refused command with, from the errors it can refuse with:
 * invalid input (400), another brokerage's office or order (401, 404), not this party's step
 * (403), a reused command id (409), a replaced shipment (410), a transition the machine refuses
 * (422). Every one carries the error body.
 */
export type RefusalStatus = (
  | InvalidParams
  | Unauthorized
  | Forbidden
  | NotFound
  | IdempotencyConflict
  | DeliveryIssueConflict
  | ShipmentReplaced
  | InvalidTransition
  | AddressRefused
  | TrackingNumberInUse
)['status'];

/** A finished command: exactly the status and body the synchronous HTTP call answers. */
export type CommandOutcome<N extends JobName = JobName> = { commandId: string } & (
  | { status: N extends 'delivery_issue.open' ? 201 : N extends 'order.hold_place' ? 200 | 201 : 200; body: AnswerBodies[N] }
  | { status: RefusalStatus; body: ErrorBody }
);
