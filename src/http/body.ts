import type { FastifyInstance } from 'fastify';
import { assertStorableJson, InvalidParams } from '@fulfil/contract';

/** The largest body a v9 request may carry (413 beyond). */
export const BODY_LIMIT = 64 * 1024;

/**
 * Bodies under /v9 are JSON whatever the Content-Type says: existing clients send none, or
 * text/plain (docs/API.md §Conventions). Reading keeps only the raw bytes (request.rawBody), because the
 * signature covers them exactly as received; over 64 KiB reading fails with
 * FST_ERR_CTP_BODY_TOO_LARGE (413). Parsing waits for authentication (installJsonBody), so an
 * unsigned caller costs no JSON work and learns nothing about its body but 401.
 */
export function installRawBody(v9: FastifyInstance): void {
  v9.removeAllContentTypeParsers();
  v9.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const raw = body as Buffer;
    if (raw.length > 0) request.rawBody = raw;
    done(null, undefined);
  });
}

/** Parses the raw body into request.body; install after the auth hook, it runs in that order. */
export function installJsonBody(v9: FastifyInstance): void {
  v9.addHook('preValidation', (request, _reply, done) => {
    if (!request.rawBody) return done();
    try {
      const parsed = parseJson(request.rawBody);
      assertStorableJson(parsed);
      request.body = parsed;
    } catch (err) {
      // Whatever went wrong, it was the body: never let it become a 500.
      return done(err instanceof InvalidParams ? err : new InvalidParams('request body is not valid JSON', 'body'));
    }
    done();
  });
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Such a key is spelled out in the text, or hidden behind a \u escape: a body with neither (nearly
// every one) is parsed without the reviver, which costs several plain parses.
const MAYBE_POISONED = /__proto__|constructor|\\u/;

function refusePoisonedKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value)) {
    throw new InvalidParams(`request body must not contain the key "${key}"`, 'body');
  }
  return value;
}

/** JSON.parse that throws only InvalidParams, and refuses the keys which could poison a prototype once merged into an object. */
function parseJson(raw: Buffer): unknown {
  let text: string;
  try {
    text = STRICT_UTF8.decode(raw);
  } catch {
    // Decoding leniently would turn the bad bytes into U+FFFD and store a text the client never sent.
    throw new InvalidParams('request body is not valid UTF-8', 'body');
  }
  try {
    return MAYBE_POISONED.test(text) ? JSON.parse(text, refusePoisonedKeys) : JSON.parse(text);
  } catch (err) {
    if (err instanceof InvalidParams) throw err;
    if (err instanceof RangeError) throw new InvalidParams(`body: nested too deeply`, 'body');
    throw new InvalidParams('request body is not valid JSON', 'body');
  }
}
