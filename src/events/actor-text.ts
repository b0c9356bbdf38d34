import type { ShipmentEventRow } from './public-event.ts';

type ActorColumns = Pick<ShipmentEventRow, 'actorType' | 'actorRole' | 'actorBrokerageId' | 'actorReason'>;

/**
 * Who caused an event, as the operator views print it: a party as `seller (brokerage 1)`, the
 * service itself as `system (deadline_passed)` (it has no role or brokerage, only a reason).
 */
export function actorText(e: ActorColumns): string {
  return e.actorType === 'system' ? `system (${e.actorReason})` : `${e.actorRole} (brokerage ${e.actorBrokerageId})`;
}
