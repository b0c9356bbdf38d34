import type { z } from 'zod';
import {
  closeIssueCommand,
  escalateIssueCommand,
  openIssueCommand,
  reissueCommand,
  resolveIssueCommand,
  respondIssueCommand,
} from './delivery-issue-input.ts';
import { answerHoldCommand, placeHoldCommand, releaseHoldCommand } from './hold-input.ts';
import { inventoryMapCommand, inventoryRemoveCommand, inventoryUpsertCommand } from './inventory-commands.ts';
import { acceptCommand } from './order-accept-input.ts';
import { cancelCommand, confirmReceiptCommand, orderUpdateCommand, rejectCommand, withdrawCancelCommand } from './order-commands.ts';
import { completeBody, completeCommand } from './shipment-complete-input.ts';
import { eticketsCommand, transferVerificationCommand } from './shipment-files-input.ts';
import { buyerPickupBody, mobileTransferBody, sellerPickupBody, updateCommand } from './shipment-update-input.ts';
import { mailBody, airbillCommand, carrierUpdateCommand, trackingEventCommand, trackingNumberCommand } from './mailed-input.ts';
import type { JobMap, JobName } from '../jobs/job-map.ts';

/** The schema of each job's payload: the ones the workers parse with (workers/*.ts). */
export const PAYLOAD_SCHEMAS = {
  'order.accept': acceptCommand,
  'order.reject': rejectCommand,
  'order.cancel': cancelCommand,
  'order.withdraw_cancel': withdrawCancelCommand,
  'order.confirm_receipt': confirmReceiptCommand,
  'order.update': orderUpdateCommand,
  'shipment.update': updateCommand,
  'shipment.complete': completeCommand,
  'shipment.etickets': eticketsCommand,
  'shipment.transfer_verification': transferVerificationCommand,
  'shipment.airbill': airbillCommand,
  'shipment.tracking_number': trackingNumberCommand,
  'shipment.tracking_event': trackingEventCommand,
  'shipment.carrier_update': carrierUpdateCommand,
  'inventory.upsert': inventoryUpsertCommand,
  'inventory.map': inventoryMapCommand,
  'inventory.remove': inventoryRemoveCommand,
  'delivery_issue.open': openIssueCommand,
  'delivery_issue.respond': respondIssueCommand,
  'delivery_issue.resolve': resolveIssueCommand,
  'delivery_issue.escalate': escalateIssueCommand,
  'delivery_issue.close': closeIssueCommand,
  'shipment.reissue': reissueCommand,
  'order.hold_place': placeHoldCommand,
  'hold.release': releaseHoldCommand,
  'hold.answer': answerHoldCommand,
} as const satisfies { readonly [N in JobName]: z.ZodType<JobMap[N]> };

/** What a producer may pass for a job (aliases and defaults allowed); JobMap[N] is what workers get. */
export type JobInput<N extends JobName> = z.input<(typeof PAYLOAD_SCHEMAS)[N]>;

export type AcceptOrderInput = JobInput<'order.accept'>;
export type RejectOrderInput = JobInput<'order.reject'>;
export type CancelOrderInput = JobInput<'order.cancel'>;
export type UpdateOrderInput = JobInput<'order.update'>;
/** Exactly a PUT /v9/shipments/:id body: a mobile transfer, a seller or a buyer local pickup. */
export type UpdateShipmentBody =
  z.input<typeof mobileTransferBody> | z.input<typeof sellerPickupBody> | z.input<typeof buyerPickupBody> | z.input<typeof mailBody>;
/** Exactly a PUT /v9/shipments/:id/complete body. */
export type CompleteShipmentBody = z.input<typeof completeBody>;
export type InventoryUpsertInput = JobInput<'inventory.upsert'>;
export type InventoryMapInput = JobInput<'inventory.map'>;
export type InventoryRemoveInput = JobInput<'inventory.remove'>;
