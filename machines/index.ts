export {
  SHIPMENT_STATES,
  SHIPMENT_TYPES,
  MOBILE_TRANSFER_TYPES,
  shipmentMachine,
  initialShipmentSnapshot,
  applyShipmentEvent,
  shipmentView,
  stateValueString,
} from './shipment.ts';
export type {
  ShipmentType,
  MobileTransferType,
  ShipmentInput,
  ShipmentContext,
  ShipmentEvent,
  PersistedShipment,
  ShipmentView,
  ShipmentResult,
} from './shipment.ts';
export { ORDER_STATES, OPEN_ORDER_STATES, orderMachine, initialOrderSnapshot, applyOrderEvent, orderView } from './order.ts';
export type { OrderState, OrderParty, OrderEvent, PersistedOrder, OrderView, OrderResult } from './order.ts';
export {
  DELIVERY_ISSUE_STATES,
  UNDECIDED_ISSUE_STATES,
  deliveryIssueMachine,
  initialIssueSnapshot,
  applyIssueEvent,
  issueState,
} from './delivery-issue.ts';
export type { DeliveryIssueState, DeliveryIssueEvent, PersistedIssue, IssueResult } from './delivery-issue.ts';
