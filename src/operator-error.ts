/**
 * The errors that are the operator's to fix: a bad variable, no Redis, a data directory another
 * user owns, a service that cannot be reached. The message is the whole story (what is wrong and
 * what to do), so the CLI prints it as one line, with no stack, and exits 1 (src/cli/main.ts);
 * `fulfil start` ends the same way. Errors an API caller is answered with are the contract's
 * AppError (code and status); any other error is unexpected, and the CLI tells it with its cause
 * and points to FULFIL_DEBUG=1 for the stack.
 *
 * Marked by a registered symbol rather than told by `instanceof` alone, so that the mark holds
 * whichever copy of this module made the error (the built dist/ and the sources in one process).
 */
const OPERATOR_ERROR = Symbol.for('fulfil.operator-error');

export class OperatorError extends Error {
  readonly [OPERATOR_ERROR] = true;
}

export function isOperatorError(err: unknown): err is OperatorError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[OPERATOR_ERROR] === true;
}
