/**
 * @fulfil/client: the typed producer of the fulfil service's commands for upstream systems, the
 * command job map, the payload schemas and types, and the errors a call can throw or a result can
 * carry. Needs only Redis (bullmq, ioredis) and zod; the service uses these same modules.
 */
export {
  FulfilmentClient,
  type CommandOutcome,
  type CommandSent,
  type FulfilmentClientOptions,
  type SendOptions,
  type SendResult,
} from './client/fulfilment-client.ts';
export type { AnswerBodies, RefusalStatus } from './client/answers.ts';
export { SHIPMENT_TYPES, type ShipmentType } from './domain/shipment-types.ts';
export { CommandFailed, CommandTimeout, NoWorkers } from './client/errors.ts';
export {
  PAYLOAD_SCHEMAS,
  type AcceptOrderInput,
  type CompleteShipmentBody,
  type InventoryMapInput,
  type InventoryRemoveInput,
  type InventoryUpsertInput,
  type JobInput,
  type UpdateShipmentBody,
} from './client/payloads.ts';
export {
  COMMAND_QUEUE,
  COMMAND_QUEUES,
  EVENTS_QUEUE,
  INVENTORY_QUEUE,
  JOB_NAMES,
  QUEUE_OF,
  isValidCommandId,
  type Actor,
  type CommandQueueName,
  type CommandResult,
  type Envelope,
  type JobMap,
  type JobName,
} from './queues/job-map.ts';
export {
  commandShardPlace,
  commandShardPlaces,
  eventsPlace,
  housekeepingPlace,
  inventoryPlace,
  keySlot,
  shardCountsKey,
  webhooksPlace,
  type QueuePlace,
} from './queues/placement.ts';
export { ShardCountMismatch } from './queues/shard-guard.ts';
export { ROUTING_RESIDUES, defaultCommandShards, shardOfCommand, shardOfId } from './queues/shard-of.ts';
export type { AcceptCommand } from './domain/order-accept-input.ts';
export type { UpdateCommand, UpdateOperation } from './domain/shipment-update-input.ts';
export type { CompleteCommand } from './domain/shipment-complete-input.ts';
export type { InventoryMapCommand, InventoryRemoveCommand, InventoryUpsertCommand } from './domain/inventory-commands.ts';
export {
  AppError,
  Forbidden,
  IdempotencyConflict,
  InvalidParams,
  InvalidTransition,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  ShipmentReplaced,
  Unauthorized,
  Unavailable,
  type ErrorBody,
} from './errors.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  WebhookVerificationError,
  signPayload,
  verifyWebhook,
  type VerifyOptions,
  type WebhookHeaders,
  type WebhookVerificationCode,
} from './webhook-signature.ts';
