import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, InvalidParams, NotFound, PayloadTooLarge, Unavailable, errorBody, toErrorBody } from '../errors.ts';
import { isInfrastructureError } from '../infrastructure-errors.ts';

/** The one place where any error becomes the contract's `{"errors":[{code,message}]}` body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error);
    if (appError) {
      if (appError.status >= 500) request.log.warn({ err: error }, appError.message);
      return reply.status(appError.status).headers(appError.headers).send(toErrorBody(appError));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorBody('internal_error', 'internal error; it has been logged'));
  });
  app.setNotFoundHandler((request, reply) => {
    const e = new NotFound(`no route for ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(toErrorBody(e));
  });
}

function toAppError(error: FastifyError): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PayloadTooLarge('request body is larger than 64 KiB');
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP')) {
    return new InvalidParams(`request body is not valid JSON: ${error.message}`, 'body');
  }
  if (error.validation) return new InvalidParams(error.message);
  if (isInfrastructureError(error)) return new Unavailable();
  return undefined;
}
