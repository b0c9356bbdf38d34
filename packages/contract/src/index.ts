/**
 * @fulfil/contract: what the fulfil service and its producers agree on, defined once. The command
 * job map and queue routing, the payload schemas and their types, the shipment types and answer
 * bodies, the error classes and the error body, the request fingerprint, the webhook signature,
 * and the shipment events (their kinds, actors, message and stream entries). Pure definitions (zod and
 * node:crypto only): the service, the machines and the producer package (@fulfil/client) depend
 * on it by name.
 */
export * from './errors.ts';
export * from './jobs/job-map.ts';
export * from './jobs/placement.ts';
export * from './jobs/retry-backoff.ts';
export * from './jobs/shard-of.ts';
export * from './payloads/validation.ts';
export * from './payloads/accepted-enum.ts';
export * from './payloads/country-codes.ts';
export * from './payloads/contact-input.ts';
export * from './payloads/ticket-group-input.ts';
export * from './payloads/order-accept-input.ts';
export * from './payloads/order-commands.ts';
export * from './payloads/shipment-update-input.ts';
export * from './payloads/shipment-complete-input.ts';
export * from './payloads/shipment-files-input.ts';
export * from './payloads/mailed-input.ts';
export * from './payloads/ticket-delivery-input.ts';
export * from './payloads/inventory-commands.ts';
export * from './payloads/delivery-issue-input.ts';
export * from './payloads/hold-input.ts';
export * from './payloads/payload-schemas.ts';
export * from './shipments/shipment-types.ts';
export * as shipmentAnswers from './shipments/shipment-answers.ts';
export * as fileAnswers from './shipments/file-answers.ts';
export * as deliveryIssueAnswers from './shipments/delivery-issue-answers.ts';
export * as holdAnswers from './shipments/hold-answers.ts';
export * as mailedAnswers from './shipments/mailed-answers.ts';
export * from './shipments/answer-bodies.ts';
export * from './commands/fingerprint.ts';
export * from './webhooks/signature.ts';
export * from './webhooks/standard-webhooks.ts';
export * from './events/event-kinds.ts';
export * from './events/event-message.ts';
export * from './events/event-stream.ts';
