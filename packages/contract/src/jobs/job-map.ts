import { RETRY_BACKOFF_TYPE } from './retry-backoff.ts';
import type { AcceptCommand } from '../payloads/order-accept-input.ts';
import type {
  CancelCommand,
  ConfirmReceiptCommand,
  OrderUpdateCommand,
  RejectCommand,
  WithdrawCancelCommand,
} from '../payloads/order-commands.ts';
import type { CompleteCommand } from '../payloads/shipment-complete-input.ts';
import type { UpdateCommand } from '../payloads/shipment-update-input.ts';
import type { EticketsCommand, TransferVerificationCommand } from '../payloads/shipment-files-input.ts';
import type {
  CloseIssueCommand,
  EscalateIssueCommand,
  OpenIssueCommand,
  ReissueCommand,
  RespondIssueCommand,
  ResolveIssueCommand,
} from '../payloads/delivery-issue-input.ts';
import type { AirbillCommand, CarrierUpdateCommand, TrackingEventCommand, TrackingNumberCommand } from '../payloads/mailed-input.ts';
import type { AnswerHoldCommand, PlaceHoldCommand, ReleaseHoldCommand } from '../payloads/hold-input.ts';
import type { InventoryMapCommand, InventoryRemoveCommand, InventoryUpsertCommand } from '../payloads/inventory-commands.ts';

/** Who a command acts for. HTTP calls carry the credential's; upstream jobs name a brokerage. */
export interface Actor {
  brokerageId: number;
  userId: number | null;
  via: 'api' | 'user' | 'upstream';
}

/** What travels in a BullMQ job: the command id doubles as the job id (so no ':' in it). */
export interface Envelope<P> {
  commandId: string;
  actor: Actor;
  /** sha256 of the request the command came from; a reused id with another hash is a conflict. */
  requestHash: string;
  payload: P;
  /** The HTTP request that sent it, when one did: worker log lines carry it too. */
  requestId?: string;
  /** The reply channel of the API process waiting for the answer (the service's src/queues/reply-channel.ts). */
  replyTo?: string;
}

/** The answer a synchronous HTTP call gives; stored in commands.result_* when the job finishes. */
export interface CommandResult {
  status: number;
  body: unknown;
}

/** Job name → payload. Every name has exactly one handler in workers/ (checked at start-up). */
export interface JobMap {
  'order.accept': AcceptCommand;
  'order.reject': RejectCommand;
  'order.cancel': CancelCommand;
  'order.withdraw_cancel': WithdrawCancelCommand;
  'order.confirm_receipt': ConfirmReceiptCommand;
  'order.update': OrderUpdateCommand;
  'shipment.update': UpdateCommand;
  'shipment.complete': CompleteCommand;
  'shipment.etickets': EticketsCommand;
  'shipment.transfer_verification': TransferVerificationCommand;
  'shipment.airbill': AirbillCommand;
  'shipment.tracking_number': TrackingNumberCommand;
  'shipment.tracking_event': TrackingEventCommand;
  'shipment.carrier_update': CarrierUpdateCommand;
  'inventory.upsert': InventoryUpsertCommand;
  'inventory.map': InventoryMapCommand;
  'inventory.remove': InventoryRemoveCommand;
  'delivery_issue.open': OpenIssueCommand;
  'delivery_issue.respond': RespondIssueCommand;
  'delivery_issue.resolve': ResolveIssueCommand;
  'delivery_issue.escalate': EscalateIssueCommand;
  'delivery_issue.close': CloseIssueCommand;
  'shipment.reissue': ReissueCommand;
  'order.hold_place': PlaceHoldCommand;
  'hold.release': ReleaseHoldCommand;
  'hold.answer': AnswerHoldCommand;
}

export type JobName = keyof JobMap;

export const COMMAND_QUEUE = 'commands';
export const INVENTORY_QUEUE = 'inventory';
/** Outgoing webhook deliveries (the service's src/webhooks/). */
export const WEBHOOKS_QUEUE = 'fulfil-webhooks';
export type CommandQueueName = typeof COMMAND_QUEUE | typeof INVENTORY_QUEUE;

/** Inventory batches are large and slow; their own queue keeps them from delaying shipments. */
export const QUEUE_OF: { readonly [N in JobName]: CommandQueueName } = {
  'order.accept': COMMAND_QUEUE,
  'order.reject': COMMAND_QUEUE,
  'order.cancel': COMMAND_QUEUE,
  'order.withdraw_cancel': COMMAND_QUEUE,
  'order.confirm_receipt': COMMAND_QUEUE,
  'order.update': COMMAND_QUEUE,
  'shipment.update': COMMAND_QUEUE,
  'shipment.complete': COMMAND_QUEUE,
  'shipment.etickets': COMMAND_QUEUE,
  'shipment.transfer_verification': COMMAND_QUEUE,
  'shipment.airbill': COMMAND_QUEUE,
  'shipment.tracking_number': COMMAND_QUEUE,
  'shipment.tracking_event': COMMAND_QUEUE,
  'shipment.carrier_update': COMMAND_QUEUE,
  'inventory.upsert': INVENTORY_QUEUE,
  'inventory.map': INVENTORY_QUEUE,
  'inventory.remove': INVENTORY_QUEUE,
  'delivery_issue.open': COMMAND_QUEUE,
  'delivery_issue.respond': COMMAND_QUEUE,
  'delivery_issue.resolve': COMMAND_QUEUE,
  'delivery_issue.escalate': COMMAND_QUEUE,
  'delivery_issue.close': COMMAND_QUEUE,
  'shipment.reissue': COMMAND_QUEUE,
  'order.hold_place': COMMAND_QUEUE,
  'hold.release': COMMAND_QUEUE,
  'hold.answer': COMMAND_QUEUE,
};

export const JOB_NAMES = Object.keys(QUEUE_OF) as JobName[];
export const COMMAND_QUEUES: readonly CommandQueueName[] = [COMMAND_QUEUE, INVENTORY_QUEUE];

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(QUEUE_OF, name);
}

const COMMAND_ID = /^[A-Za-z0-9_.-]{1,128}$/;
export function isValidCommandId(id: string): boolean {
  return COMMAND_ID.test(id);
}

/** Retries are for infrastructure errors only (domain rejections are results, not throws). */
export const DEFAULT_JOB_OPTIONS = {
  // With the capped backoff (retry-backoff.ts), 40 attempts keep retrying for about 3 minutes.
  attempts: 40,
  backoff: { type: RETRY_BACKOFF_TYPE, delay: 250 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
