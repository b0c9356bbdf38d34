import deliveryIssueClose from './delivery-issue-close.ts';
import deliveryIssueEscalate from './delivery-issue-escalate.ts';
import deliveryIssueOpen from './delivery-issue-open.ts';
import deliveryIssueResolve from './delivery-issue-resolve.ts';
import deliveryIssueRespond from './delivery-issue-respond.ts';
import type { Handler } from './handler.ts';
import holdAnswer from './hold-answer.ts';
import holdRelease from './hold-release.ts';
import orderHoldPlace from './order-hold-place.ts';
import { buildRegistry } from './registry.ts';
import inventoryMap from './inventory-map.ts';
import inventoryRemove from './inventory-remove.ts';
import inventoryUpsert from './inventory-upsert.ts';
import orderAccept from './order-accept.ts';
import orderCancel from './order-cancel.ts';
import orderReject from './order-reject.ts';
import orderUpdate from './order-update.ts';
import orderWithdrawCancel from './order-withdraw-cancel.ts';
import orderConfirmReceipt from './order-confirm-receipt.ts';
import shipmentComplete from './shipment-complete.ts';
import shipmentEtickets from './shipment-etickets.ts';
import shipmentReissue from './shipment-reissue.ts';
import shipmentTransferVerification from './shipment-transfer-verification.ts';
import shipmentUpdate from './shipment-update.ts';
import shipmentAirbill from './shipment-airbill.ts';
import shipmentCarrierUpdate from './shipment-carrier-update.ts';
import shipmentTrackingEvent from './shipment-tracking-event.ts';
import shipmentTrackingNumber from './shipment-tracking-number.ts';

/** Every command handler; adding a job name to the job map without a handler here fails start-up. */
export const HANDLERS: readonly Handler[] = [
  orderAccept,
  orderReject,
  orderCancel,
  orderWithdrawCancel,
  orderConfirmReceipt,
  orderUpdate,
  shipmentUpdate,
  shipmentComplete,
  shipmentEtickets,
  shipmentTransferVerification,
  shipmentAirbill,
  shipmentTrackingNumber,
  shipmentTrackingEvent,
  shipmentCarrierUpdate,
  inventoryUpsert,
  inventoryMap,
  inventoryRemove,
  deliveryIssueOpen,
  deliveryIssueRespond,
  deliveryIssueResolve,
  deliveryIssueEscalate,
  deliveryIssueClose,
  shipmentReissue,
  orderHoldPlace,
  holdRelease,
  holdAnswer,
] as Handler[];

export const registry = () => buildRegistry(HANDLERS);
