import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, InvalidParams, NotFound, Unavailable, errorBody, toErrorBody, type ErrorBody } from '@fulfil/contract';
import { isOpsPath, opsNotFoundPage } from '../ops/html.ts';
import { PayloadTooLarge } from '../http-errors.ts';
import { isInfrastructureError } from '../infrastructure-errors.ts';
import { sqlStateOf } from '../db/sql-state.ts';
import { withoutLinkToken } from '../link-tokens.ts';

/** The one place where any error becomes the contract's `{"errors":[{code,message}]}` body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, request);
    if (appError) {
      if (appError.status >= 500) request.log.warn({ err: error }, appError.message);
      return reply.status(appError.status).headers(appError.headers).send(toErrorBody(appError));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorBody('internal_error', 'internal error; it has been logged'));
  });
  app.setNotFoundHandler((request, reply) => {
    // The operator pages speak to people: an unknown one is a page too, as their other answers are.
    if (isOpsPath(request.url)) {
      return reply
        .status(404)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(opsNotFoundPage(request.method, request.url));
    }
    const e = new NotFound(`no route for ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(toErrorBody(e));
  });
}

/**
 * Requests that arrive while the server closes (a keep-alive connection, a pipelined request)
 * answer the contract's 503 `unavailable`: nothing was taken, another instance can be asked.
 * Fastify's own `return503OnClosing` would answer in its own body shape, so it is off and this
 * gate, opened by the preClose hook, does the same job first in every request's lifecycle.
 */
export function installShutdownGate(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new Unavailable('the server is shutting down; the request was not taken, nothing changed'));
  });
}

/**
 * Errors find-my-way raises before any route runs (Fastify's `frameworkErrors` option): a path
 * with malformed percent-encoding (`/v9/shipments/%zz`), a path parameter over the length limit.
 * No hook or error handler runs for these, so the body and the request id are set here.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError =
    error.code === 'FST_ERR_BAD_URL'
      ? new InvalidParams('path: not a valid URL (malformed percent-encoding)', 'path')
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new InvalidParams('path: a path parameter is too long', 'path')
        : (toAppError(error, request) ?? new Unavailable());
  request.log.info({ code: error.code, path: withoutLinkToken(request.url.split('?')[0]!) }, 'request refused before routing');
  void reply.status(appError.status).headers(appError.headers).header('x-request-id', request.id).send(toErrorBody(appError));
}

/**
 * Errors of the connection itself, before Fastify sees a request (Fastify's `clientErrorHandler`):
 * an unparsable request line or header, headers over Node's limit, a request not received in
 * time. Answered with a minimal HTTP/1.1 response carrying a contract body, then the connection
 * is closed; nothing is written when a response is already under way or the socket is gone.
 * Statuses keep their HTTP meaning (431, 408) so proxies and clients handle them as usual; the
 * codes are the contract's nearest.
 */
export function clientErrorHandler(log: FastifyBaseLogger): (error: Error & { code?: string }, socket: Socket) => void {
  const answered = new WeakSet<Socket>();
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    log.debug({ err: error }, 'client connection error');
    const [status, body] = clientErrorResponse(error.code);
    // Node's own rule: a response whose headers were already sent cannot be followed by another.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(json)}\r\nconnection: close\r\n\r\n${json}`,
    );
    // The client may still be sending (say the rest of an oversized header): keep reading and
    // dropping it, so that closing does not reset the connection and lose the answer in flight;
    // a client that never closes its side is cut off after a few seconds.
    socket.on('data', () => {});
    socket.resume();
    socket.setTimeout(5_000, () => socket.destroy());
  };
}

function sizeText(bytes: number): string {
  const MIB = 1024 * 1024;
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

function clientErrorResponse(code: string | undefined): [number, ErrorBody] {
  if (code === 'HPE_HEADER_OVERFLOW')
    return [431, errorBody('payload_too_large', 'request line and headers are larger than the server accepts')];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, errorBody('request_timeout', 'the request was not received in time')];
  return [400, errorBody('invalid_params', 'malformed HTTP request')];
}

function toAppError(error: FastifyError, request: FastifyRequest): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    // The route's own limit (the upload routes take 25 MiB, the others 64 KiB), as the caller must size to it.
    return new PayloadTooLarge(`request body is larger than ${sizeText(request.routeOptions.bodyLimit)}, the limit of this route`);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP')) {
    return new InvalidParams(`request body is not valid JSON: ${error.message}`, 'body');
  }
  if (error.validation) return new InvalidParams(error.message);
  // Routes check their input, so this is a safety net: text Postgres cannot store (a NUL byte)
  // that reached it is the request's fault, not the server's.
  if (['22021', '22P05'].includes(sqlStateOf(error) ?? '')) {
    return new InvalidParams('a value contains a character that cannot be stored (such as a NUL byte)');
  }
  if (error.code === 'FST_ERR_HANDLER_TIMEOUT') {
    // Unlike the other 503s, the work may have been taken (a command recorded before a backend
    // stalled): only a retry with the same Idempotency-Key is safe, and it tells the outcome.
    return new Unavailable('the request did not finish in time; retry it with the same Idempotency-Key to get its outcome');
  }
  if (isInfrastructureError(error)) return new Unavailable();
  // Any other refusal Fastify raises itself (a QUERY without Content-Type, a malformed media
  // type, …) is the request's fault: a 4xx in the contract's shape, never a 500.
  if (error.code?.startsWith('FST_ERR') && error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new InvalidParams(error.message);
  }
  return undefined;
}
