/**
 * @fulfil/client: the typed producer of the fulfil service's commands for upstream systems. Needs
 * only Redis (bullmq, ioredis); the command job map, payload schemas, answers and errors it
 * re-exports are defined once in @fulfil/contract, which the service uses too.
 */
export {
  FulfilmentClient,
  type CommandOutcome,
  type CommandSent,
  type FulfilmentClientOptions,
  type SendOptions,
  type SendResult,
  type WithShipmentId,
  type InventoryMapArgs,
  type InventoryRemoveArgs,
  type InventoryUpsertArgs,
} from './client/fulfilment-client.ts';
export { SHIPMENT_TYPES, type AnswerBodies, type RefusalStatus, type ShipmentType } from '@fulfil/contract';
export { CommandFailed, CommandTimeout, NoWorkers } from './client/errors.ts';
export {
  MAX_FILE_BYTES,
  MAX_FILES_PER_UPLOAD,
  MAX_UPLOAD_REQUEST_BYTES,
  TRANSFER_SOURCES,
  PAYLOAD_SCHEMAS,
  type AcceptOrderInput,
  type CompleteShipmentBody,
  type InventoryMapInput,
  type InventoryRemoveInput,
  type InventoryUpsertInput,
  type JobInput,
  type UpdateShipmentBody,
} from '@fulfil/contract';
export {
  COMMAND_QUEUE,
  COMMAND_QUEUES,
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
} from '@fulfil/contract';
export {
  commandShardPlace,
  commandShardPlaces,
  eventsStreamKey,
  housekeepingPlace,
  inventoryPlace,
  keySlot,
  shardCountsKey,
  webhooksPlace,
  type QueuePlace,
} from '@fulfil/contract';
export { ShardCountMismatch } from './queues/shard-guard.ts';
export { ROUTING_RESIDUES, defaultCommandShards, shardOfCommand, shardOfId } from '@fulfil/contract';
export type {
  AcceptCommand,
  CompleteCommand,
  CompletionTicket,
  EticketsBody,
  EticketsCommand,
  TransferSourceCode,
  TransferVerificationBody,
  TransferVerificationCommand,
  InventoryMapCommand,
  InventoryRemoveCommand,
  InventoryUpsertCommand,
  UpdateCommand,
  UpdateOperation,
} from '@fulfil/contract';
export {
  AppError,
  Forbidden,
  IdempotencyConflict,
  InvalidParams,
  InvalidTransition,
  NotFound,
  ShipmentReplaced,
  Unavailable,
  type ErrorBody,
} from '@fulfil/contract';
export {
  DEFAULT_TOLERANCE_SECONDS,
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WebhookVerificationError,
  signPayload,
  signStandardWebhook,
  standardWebhooksKey,
  toStandardWebhooksSecret,
  verifyWebhook,
  type VerifyOptions,
  type WebhookHeaders,
  type WebhookVerificationCode,
} from '@fulfil/contract';
export { parseEventStreamEntry, type EventActor, type EventMessage } from '@fulfil/contract';
