/**
 * The errors a command or a request can end in, shared by the service and its producers (the
 * HTTP ingress adds its own few in src/http-errors.ts). Each class carries its code and HTTP status; the body
 * `{"errors":[{"code","message",...extra}]}` is built in one place (toErrorBody), for HTTP
 * answers and for command results stored in Postgres alike.
 */
export abstract class AppError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  /** Extra fields of the error object (docs/API.md §Errors: e.g. replaced_by). */
  readonly extra: Record<string, unknown> = {};
  headers: Record<string, string> = {};

  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    // The class's own name (Unavailable, InvalidParams, ...) in stack traces, logs and util.inspect.
    this.name = new.target.name;
  }
}

/**
 * The one spelling of a place in a request (D-130): its keys and array indexes joined by dots,
 * `etickets.0.eticket`, the way zod reports a path and form libraries (react-hook-form, Formik)
 * name a field. Every `field` of a 400, and the `<field>:` its message starts with, is built here.
 */
export function fieldPath(...segments: ReadonlyArray<PropertyKey>): string {
  return segments.map(String).join('.');
}

export class InvalidParams extends AppError {
  readonly code = 'invalid_params';
  readonly status = 400 as const;
  /** The problems after the first (the message and field): each is one more entry of the body's `errors`. */
  more: ReadonlyArray<{ message: string; field?: string }> = [];
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    if (field) this.extra.field = field;
  }

  /** One problem at `field` (a fieldPath): the message reads `<field>: <what is wrong>`. */
  static at(field: string, what: string): InvalidParams {
    return new InvalidParams(`${field}: ${what}`, field);
  }

  /** Every problem of a request at once: the first is the error's message, all are in its body. */
  static of(problems: ReadonlyArray<{ message: string; field?: string }>): InvalidParams {
    const [first, ...rest] = problems;
    const err = new InvalidParams(first?.message ?? 'invalid request', first?.field);
    err.more = rest;
    return err;
  }
}

export class Unauthorized extends AppError {
  readonly code = 'unauthorized';
  readonly status = 401 as const;
}

export class Forbidden extends AppError {
  readonly code = 'forbidden';
  readonly status = 403 as const;
}

export class NotFound extends AppError {
  readonly code = 'not_found';
  readonly status = 404 as const;
  constructor(message = 'not found') {
    super(message);
  }
}

export class IdempotencyConflict extends AppError {
  readonly code = 'idempotency_conflict';
  readonly status = 409 as const;
  constructor(message = 'this Idempotency-Key was already used with a different request') {
    super(message);
  }
}

export class ShipmentReplaced extends AppError {
  readonly code = 'shipment_replaced';
  readonly status = 410 as const;
  constructor(readonly replacedBy: number) {
    super(`shipment was replaced by shipment ${replacedBy}; use the new id`);
    this.extra.replaced_by = replacedBy;
  }
}

export class InvalidTransition extends AppError {
  readonly code = 'invalid_transition';
  readonly status = 422 as const;
}

/** A buyer opens a delivery issue while another of the order is undecided: the body names it. */
export class DeliveryIssueConflict extends AppError {
  readonly code = 'delivery_issue_open';
  readonly status = 409 as const;
  constructor(readonly openIssueId: number) {
    super(`delivery issue ${openIssueId} of this order is still open; resolve or escalate it first`);
    this.extra.delivery_issue_id = openIssueId;
  }
}

/** An upload onto a mailed shipment whose label was bought through the carrier account: that label stands (D-164). */
export class LabelBought extends AppError {
  readonly code = 'label_bought';
  readonly status = 409 as const;
  constructor(shipmentId: number) {
    super(
      `shipment ${shipmentId} has a label bought through the carrier account; it stands, and an uploaded one cannot replace it ` +
        '(send {} to get the bought label again)',
    );
  }
}

/** A test clock that is advancing: it cannot advance again or be deleted until it is ready. */
export class TestClockAdvancing extends AppError {
  readonly code = 'test_clock_advancing';
  readonly status = 409 as const;
  constructor(clockId: number, to: string) {
    super(`test clock ${clockId} is advancing to ${to}; wait until its status is ready (GET /v9/test_clocks/${clockId})`);
    this.extra.test_clock_id = clockId;
  }
}

/**
 * A tracking number another shipment holds (one envelope, one number, across all brokerages):
 * the message names neither the holder nor its order, so the answer tells nothing of them.
 */
export class TrackingNumberInUse extends AppError {
  readonly code = 'tracking_number_in_use';
  readonly status = 409 as const;
  constructor(readonly field = 'tracking_number') {
    super(`${field}: this tracking number belongs to another shipment's envelope; give the number of this shipment's own envelope`);
    this.extra.field = field;
  }
}

/** A mailed shipment's address the chosen carrier does not deliver to (a PO box for FedEx or UPS): 422 naming the field. */
export class AddressRefused extends AppError {
  readonly code = 'address_refused';
  readonly status = 422 as const;
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.extra.field = field;
  }
}

/** The carrier account (EasyPost) refused or did not answer: nothing changed; the message says what it said. */
export class CarrierFailed extends AppError {
  readonly code = 'carrier_error';
  readonly status = 502 as const;
  constructor(message: string, carrierCode?: string) {
    super(message);
    if (carrierCode) this.extra.carrier_code = carrierCode;
  }
}

export class Unavailable extends AppError {
  readonly code = 'unavailable';
  readonly status = 503 as const;
  constructor(message = 'service temporarily unavailable; the request was not taken, nothing changed') {
    super(message);
  }
}

export interface ErrorBody {
  errors: Array<{ code: string; message: string } & Record<string, unknown>>;
}

export function errorBody(code: string, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { errors: [{ code, message, ...extra }] };
}

export function toErrorBody(err: AppError): ErrorBody {
  const body = errorBody(err.code, err.message, err.extra);
  // A request with several problems is told all of them, one entry each, in the same shape.
  if (err instanceof InvalidParams) {
    for (const p of err.more) body.errors.push({ code: err.code, message: p.message, ...(p.field ? { field: p.field } : {}) });
  }
  return body;
}
