import type { AddressAttributes, CarrierScan } from '@fulfil/contract';

/**
 * What the shipment logic needs of a carrier aggregator (EasyPost today; Shippo would be a second
 * file beside easypost-adapter.ts): buy a label, register a tracker, verify and read a webhook.
 * Nothing else of the aggregator leaks out: its ids are opaque strings, its statuses are mapped to
 * the tracking statuses of docs/API.md, its failures are CarrierFailure with what it said.
 */
export interface CarrierAdapter {
  /** A short name, stored with what the adapter made: `easypost`. */
  readonly provider: string;
  buyLabel(request: LabelRequest): Promise<BoughtLabel>;
  /** Asks the carrier to refund a label bought and not used; answers its refund status (`submitted`, …). */
  voidLabel(labelId: string): Promise<{ refundStatus: string }>;
  /** The longest a purchase may take (each of its calls under the adapter's timeout). */
  readonly purchaseMs: number;
  registerTracker(trackingCode: string, carrier: string): Promise<{ trackerId: string }>;
  /** The event of a webhook call, or CarrierSignatureInvalid; `null` for an event that is not about tracking. */
  readWebhook(rawBody: Buffer, headers: Readonly<Record<string, string | string[] | undefined>>): CarrierWebhook | null;
}

export interface LabelRequest {
  /** Ours, sent as the aggregator's reference: the shipment id. */
  reference: string;
  carrier: 'FedEx' | 'UPS' | 'USPS';
  /** The seller's chosen service; null: the adapter chooses by deliverBy. */
  serviceType: string | null;
  to: AddressAttributes;
  /** The seller's return address; undefined: the account's (EASYPOST_FROM_ADDRESS_ID). */
  from?: AddressAttributes | undefined;
  deliverBy: Date | null;
  now: Date;
}

export interface BoughtLabel {
  labelId: string;
  trackingCode: string;
  trackerId: string | null;
  service: string;
  /** Why this service, for the answer. */
  reason: string;
  rate: string | null;
  estimatedDeliveryAt: Date | null;
  /** The label itself, as a PDF. */
  pdf: Buffer;
}

export interface CarrierWebhook {
  eventId: string;
  trackingCode: string;
  /** The carrier the aggregator names (`UPS`, `USPS`, `FedEx`), when it does. */
  carrier: string | null;
  trackerId: string | null;
  estimatedDeliveryAt: string | null;
  scans: CarrierScan[];
}

/** The aggregator refused, failed or did not answer in time; `message` says what it said. */
export class CarrierFailure extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'CarrierFailure';
  }
}

/** A webhook whose signature is missing or does not match the shared secret. */
export class CarrierSignatureInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierSignatureInvalid';
  }
}

/** A webhook correctly signed whose body is not JSON: the sender's mistake to fix (400), not a forgery (401). */
export class CarrierWebhookMalformed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierWebhookMalformed';
  }
}
