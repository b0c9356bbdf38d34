import type { FastifyInstance, FastifyRequest } from 'fastify';
import { assertStorableJson } from '../domain/validation.ts';
import { InvalidParams } from '../errors.ts';
import { BODY_LIMIT } from './app.ts';

/** Malformed bodies, reported only after authentication so an unsigned caller learns nothing but 401. */
const unparsable = new WeakMap<FastifyRequest, InvalidParams>();

/**
 * Bodies under /v9 are JSON whatever the Content-Type says: existing clients send none, or
 * text/plain (SPEC §1). The raw bytes are kept on request.rawBody because the signature covers
 * them exactly as received. Over 64 KiB the parser fails with FST_ERR_CTP_BODY_TOO_LARGE (413).
 */
export function installBodyParsing(v9: FastifyInstance): void {
  v9.removeAllContentTypeParsers();
  v9.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const raw = body as Buffer;
    if (raw.length === 0) {
      done(null, undefined);
      return;
    }
    request.rawBody = raw;
    try {
      const parsed = parseJson(raw);
      assertStorableJson(parsed);
      done(null, parsed);
    } catch (err) {
      // Whatever went wrong, it was the body: never let it become a 500.
      unparsable.set(request, err instanceof InvalidParams ? err : new InvalidParams('request body is not valid JSON', 'body'));
      done(null, undefined);
    }
  });
  // preHandler runs after the preValidation auth hook (src/auth/plugin.ts).
  v9.addHook('preHandler', async (request) => {
    const err = unparsable.get(request);
    if (err) throw err;
  });
}

/** JSON.parse that throws only InvalidParams, and refuses the keys which could poison a prototype once merged into an object. */
function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'), (key, value: unknown) => {
      if (key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value)) {
        throw new InvalidParams(`request body must not contain the key "${key}"`, 'body');
      }
      return value;
    });
  } catch (err) {
    if (err instanceof InvalidParams) throw err;
    if (err instanceof RangeError) throw new InvalidParams(`body: nested too deeply`, 'body');
    throw new InvalidParams('request body is not valid JSON', 'body');
  }
}
