import { createHmac, timingSafeEqual } from 'node:crypto';
import EasyPost from '@easypost/api';
import type { AddressAttributes, CarrierScan, TrackingStatus } from '@fulfil/contract';
import {
  CarrierFailure,
  CarrierSignatureInvalid,
  CarrierWebhookMalformed,
  type BoughtLabel,
  type CarrierAdapter,
  type CarrierWebhook,
  type LabelRequest,
} from './carrier-adapter.ts';
import { chooseRate, type QuotedRate } from './service-choice.ts';

export interface EasyPostSettings {
  apiKey: string | undefined;
  webhookSecret: string | undefined;
  baseUrl: string;
  timeoutMs: number;
  fromAddressId: string | undefined;
}

// The few calls used, typed as EasyPost documents their objects (https://docs.easypost.com).
interface EpRate {
  id: string;
  carrier: string;
  service: string;
  rate: string;
  delivery_date?: string | null;
  delivery_days?: number | null;
  est_delivery_days?: number | null;
}
interface EpShipment {
  id: string;
  rates?: EpRate[];
  tracking_code?: string | null;
  selected_rate?: EpRate | null;
  postage_label?: { label_url?: string | null; label_pdf_url?: string | null } | null;
  tracker?: { id: string; est_delivery_date?: string | null } | null;
}
// The package's types describe its objects but not its default export, a class (checked at run time by the adapter's test).
const EasyPostClient = EasyPost as unknown as new (
  apiKey: string,
  options?: { baseUrl?: string; timeout?: number; requestMiddleware?: (request: SuperagentRequest) => SuperagentRequest },
) => unknown;
interface SuperagentRequest {
  timeout(ms: { response: number; deadline: number }): SuperagentRequest;
}

interface EpClient {
  Shipment: {
    create(p: object): Promise<EpShipment>;
    buy(id: string, rateId: string): Promise<EpShipment>;
    refund(id: string): Promise<EpShipment & { refund_status?: string | null }>;
  };
  Tracker: { create(p: object): Promise<{ id: string }> };
  Utils: { validateWebhook(body: Buffer, headers: object, secret: string): unknown };
}

/** EasyPost's tracker statuses as ours; the others (pre_transit, unknown, cancelled) are no scan of an envelope on its way. */
const STATUS_OF: Readonly<Record<string, TrackingStatus>> = {
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  delivered: 'delivered',
  available_for_pickup: 'exception',
  failure: 'exception',
  error: 'exception',
  return_to_sender: 'returned',
};

/** A ticket envelope: the carrier's letter package, 4 oz. */
const ENVELOPE: Readonly<Record<LabelRequest['carrier'], string>> = { FedEx: 'FedExEnvelope', UPS: 'UPSLetter', USPS: 'FlatRateEnvelope' };

const epAddress = (a: AddressAttributes) => ({
  name: a.name,
  street1: a.street_address,
  street2: a.extended_address ?? undefined,
  city: a.locality,
  state: a.region,
  zip: a.postal_code,
  country: a.country_code,
});

/**
 * The EasyPost adapter, over the official client (`@easypost/api`). Its failures become
 * CarrierFailure with EasyPost's own message; a call that outlasts EASYPOST_TIMEOUT_MS too.
 */
export class EasyPostAdapter implements CarrierAdapter {
  readonly provider = 'easypost';
  private readonly client: EpClient | undefined;

  constructor(
    private readonly settings: EasyPostSettings,
    private readonly download: (url: string, timeoutMs: number) => Promise<Buffer> = fetchBytes,
  ) {
    this.client = settings.apiKey
      ? (new EasyPostClient(settings.apiKey, {
          baseUrl: settings.baseUrl,
          timeout: settings.timeoutMs,
          // The client keeps `timeout` but (8.9.0) never applies it: each request gets it here.
          requestMiddleware: (request) => request.timeout({ response: settings.timeoutMs, deadline: settings.timeoutMs }),
        }) as unknown as EpClient)
      : undefined;
  }

  /** Three calls (create, buy, download), each within EASYPOST_TIMEOUT_MS, and a second to spare. */
  get purchaseMs(): number {
    return 3 * this.settings.timeoutMs + 1000;
  }

  /** Whether labels can be bought (an API key is set). */
  get canBuy(): boolean {
    return this.client !== undefined;
  }

  async buyLabel(req: LabelRequest): Promise<BoughtLabel> {
    const client = this.requireClient();
    const created = await this.call('create the shipment', () =>
      client.Shipment.create({
        reference: req.reference,
        to_address: epAddress(req.to),
        from_address: req.from ? epAddress(req.from) : { id: this.settings.fromAddressId },
        parcel: { predefined_package: ENVELOPE[req.carrier], weight: 4 },
        options: { label_format: 'PDF' },
      }),
    );
    const rates: QuotedRate[] = (created.rates ?? [])
      .filter((r) => r.carrier.toLowerCase() === req.carrier.toLowerCase())
      .map((r) => ({ id: r.id, carrier: r.carrier, service: r.service, rate: r.rate, deliveryAt: deliveryAt(r, req.now) }));
    const choice = chooseRate(rates, req.serviceType, req.deliverBy);
    if (!choice) {
      const what = req.serviceType ? `no ${req.carrier} rate for service ${req.serviceType}` : `no ${req.carrier} rate`;
      throw new CarrierFailure(
        `EasyPost quoted ${what} for this address (rates: ${rates.map((r) => r.service).join(', ') || 'none'})`,
        'NO_RATE',
      );
    }
    const bought = await this.call('buy the label', () => client.Shipment.buy(created.id, choice.rate.id));
    const url = bought.postage_label?.label_pdf_url ?? bought.postage_label?.label_url;
    if (!url || !bought.tracking_code)
      throw new CarrierFailure('EasyPost bought the label but gave no label URL or tracking code', 'NO_LABEL');
    const pdf = await this.call('download the label', () => this.download(url, this.settings.timeoutMs));
    const estimate = bought.tracker?.est_delivery_date ?? choice.rate.deliveryAt?.toISOString() ?? null;
    return {
      labelId: bought.id,
      trackingCode: bought.tracking_code,
      trackerId: bought.tracker?.id ?? null,
      service: bought.selected_rate?.service ?? choice.rate.service,
      reason: choice.reason,
      rate: bought.selected_rate?.rate ?? choice.rate.rate,
      estimatedDeliveryAt: estimate ? new Date(estimate) : null,
      pdf,
    };
  }

  /** EasyPost's refund of an unused label (docs.easypost.com, Refund a Shipment): it answers the shipment, `refund_status` set. */
  async voidLabel(labelId: string): Promise<{ refundStatus: string }> {
    const client = this.requireClient();
    const refunded = await this.call('refund the label', () => client.Shipment.refund(labelId));
    return { refundStatus: refunded.refund_status ?? 'unknown' };
  }

  async registerTracker(trackingCode: string, carrier: string): Promise<{ trackerId: string }> {
    const client = this.requireClient();
    const tracker = await this.call('register the tracker', () => client.Tracker.create({ tracking_code: trackingCode, carrier }));
    return { trackerId: tracker.id };
  }

  /** Verifies X-Hmac-Signature with the client's own helper (HMAC-SHA256 of the raw body under the secret, NFKD). */
  readWebhook(rawBody: Buffer, headers: Readonly<Record<string, string | string[] | undefined>>): CarrierWebhook | null {
    const secret = this.settings.webhookSecret;
    if (!secret) throw new CarrierSignatureInvalid('no EASYPOST_WEBHOOK_SECRET is set: no webhook can be verified');
    const utils = this.client?.Utils ?? (new EasyPostClient('webhook-only') as unknown as EpClient).Utils;
    let event: unknown;
    try {
      event = utils.validateWebhook(rawBody, headers, secret);
    } catch (err) {
      // The SDK says "did not originate from EasyPost" of a signed body that is not JSON, too.
      if (!isJson(rawBody) && signedBy(rawBody, headers, secret)) {
        throw new CarrierWebhookMalformed('body: not valid JSON (the signature is right: EasyPost sends an Event object as JSON)');
      }
      throw new CarrierSignatureInvalid(`X-Hmac-Signature: ${(err as Error).message}`);
    }
    return readTrackerEvent(event);
  }

  private requireClient(): EpClient {
    if (!this.client) throw new CarrierFailure('no carrier account is configured (EASYPOST_API_KEY)', 'NOT_CONFIGURED');
    return this.client;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof CarrierFailure) throw err;
      const e = err as {
        message?: string;
        code?: string;
        statusCode?: number;
        timeout?: number;
        errors?: { message?: string; field?: string }[];
      };
      const timedOut = e.timeout !== undefined || /timeout/i.test(e.message ?? '') || e.code === 'ECONNABORTED';
      if (timedOut)
        throw new CarrierFailure(`EasyPost did not answer within ${this.settings.timeoutMs} ms (${what}); nothing was bought`, 'TIMEOUT');
      const details = (e.errors ?? []).map((d) => [d.field, d.message].filter(Boolean).join(': ')).filter(Boolean);
      const said = [e.message ?? String(err), ...details].join('; ');
      throw new CarrierFailure(`EasyPost refused to ${what}: ${said}`, e.code);
    }
  }
}

function deliveryAt(r: EpRate, now: Date): Date | null {
  if (r.delivery_date) return new Date(r.delivery_date);
  const days = r.delivery_days ?? r.est_delivery_days;
  return days === null || days === undefined ? null : new Date(now.getTime() + days * 86_400_000);
}

interface EpTrackingDetail {
  status?: string;
  message?: string | null;
  description?: string | null;
  datetime?: string;
  tracking_location?: { city?: string | null; state?: string | null; country?: string | null; zip?: string | null } | null;
}

/** A tracker.updated / tracker.created event (docs.easypost.com/docs/trackers): its scans, in our terms. */
export function readTrackerEvent(event: unknown): CarrierWebhook | null {
  const e = event as { id?: unknown; description?: unknown; result?: Record<string, unknown> } | null;
  if (!e || typeof e.id !== 'string' || (e.description !== 'tracker.updated' && e.description !== 'tracker.created')) return null;
  const tracker = e.result ?? {};
  if (typeof tracker.tracking_code !== 'string' || tracker.tracking_code.length === 0) return null;
  const details = Array.isArray(tracker.tracking_details) ? (tracker.tracking_details as EpTrackingDetail[]) : [];
  const scans: CarrierScan[] = [];
  for (const d of details) {
    const status = d.status ? STATUS_OF[d.status] : undefined;
    if (!status) continue;
    const where = d.tracking_location;
    const location = where ? [where.city, where.state, where.zip, where.country].filter(Boolean).join(', ') || null : null;
    scans.push({
      status,
      // As given, even unreadable: the command stores the scan at the time it came, flagged (D-152).
      occurred_at: typeof d.datetime === 'string' ? d.datetime.slice(0, 64) : '',
      location: location?.slice(0, 200) ?? null,
      description: (d.message ?? d.description ?? null)?.slice(0, 500) ?? null,
    });
  }
  return {
    eventId: e.id,
    trackingCode: tracker.tracking_code.replace(/\s+/g, '').toUpperCase(),
    carrier: typeof tracker.carrier === 'string' ? tracker.carrier : null,
    trackerId: typeof tracker.id === 'string' ? tracker.id : null,
    estimatedDeliveryAt: usableDate(tracker.est_delivery_date),
    scans,
  };
}

/** A date the carrier gave, when it is one Postgres and the order's deadline can use (2000-2100). */
function usableDate(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const at = Date.parse(v);
  return at >= Date.UTC(2000, 0, 1) && at < Date.UTC(2101, 0, 1) ? v : null;
}

async function fetchBytes(url: string, timeoutMs: number): Promise<Buffer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new CarrierFailure(`EasyPost's label URL answered ${res.status}`, 'LABEL_DOWNLOAD');
  return Buffer.from(await res.arrayBuffer());
}

function isJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** EasyPost's documented signature, `hmac-sha256-hex=` and the HMAC-SHA256 of the raw body under the NFKD-normalised secret. */
function signedBy(body: Buffer, headers: Readonly<Record<string, string | string[] | undefined>>, secret: string): boolean {
  const given = headers['x-hmac-signature'] ?? headers['X-Hmac-Signature'];
  if (typeof given !== 'string') return false;
  const expected = `hmac-sha256-hex=${createHmac('sha256', Buffer.from(secret.normalize('NFKD'), 'utf8'))
    .update(body)
    .digest('hex')}`;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
