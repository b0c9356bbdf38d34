import { AppError } from '../errors.ts';

/** A change asked of an operator page that is read-only (the queue board without OPS_WRITE). */
export class MethodNotAllowed extends AppError {
  readonly code = 'method_not_allowed';
  readonly status = 405;
}
