/**
 * Package entry of `fulfil`: what the producer package (packages/client, `@fulfil/client`)
 * exports, plus the message the service publishes on its events stream. The service itself
 * starts from bin/fulfil.mjs; nothing here opens Postgres.
 */
export * from '@fulfil/client';
export type { EventActor, EventKind, EventMessage } from '@fulfil/contract';
