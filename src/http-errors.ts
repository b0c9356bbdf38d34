import { AppError } from '@fulfil/contract';

/**
 * Errors only the HTTP ingress answers with: no command ends in them, so they are not part of
 * the contract a producer shares. The body is built by the contract's toErrorBody like any other.
 * Below src/http on purpose: auth's rate limit and the event feed's long-poll caps raise them too.
 */
/** A method the path does not serve; `Allow` lists the ones it does (RFC 9110 §15.5.6). */
export class MethodNotAllowed extends AppError {
  readonly code = 'method_not_allowed';
  readonly status = 405 as const;
  constructor(message: string, allow: readonly string[]) {
    super(message);
    this.headers.allow = allow.join(', ');
  }
}

export class PayloadTooLarge extends AppError {
  readonly code = 'payload_too_large';
  readonly status = 413 as const;
}

export class RateLimited extends AppError {
  readonly code = 'rate_limited';
  readonly status = 429 as const;
  constructor(retryAfterSeconds: number, message = `rate limit exceeded; retry after ${retryAfterSeconds} s`) {
    super(message);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

/** A body that arrived slower than the upload routes' minimum rate, cut off (src/http/upload-admission.ts). */
export class BodyTooSlow extends AppError {
  readonly code = 'request_timeout';
  readonly status = 408 as const;
}
