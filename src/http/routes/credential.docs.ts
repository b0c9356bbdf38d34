import * as bodies from '../openapi/response-bodies.ts';
import { ok, V9_ERRORS, v9 } from '../openapi/route-doc.ts';

/** The reference of credential.ts. */
export const CREDENTIAL_DOCS = {
  current: v9({
    tag: 'Credentials',
    operationId: 'getCurrentCredential',
    summary: 'Who am I: a signing self-test',
    description: 'Answers the calling credential (never its secret). A 200 proves the client signs GET requests correctly.',
    response: ok(bodies.currentCredential, 'the calling credential'),
    errors: V9_ERRORS,
  }),
  verify: v9({
    tag: 'Credentials',
    operationId: 'verifySigning',
    summary: 'Body-signing self-test (POST or PUT)',
    description: 'Any JSON body: a 200 proves the client signs request bodies correctly.',
    body: { description: 'any JSON value' },
    bodyOptional: true,
    response: ok(bodies.verified, 'the signature is right'),
    errors: [400, ...V9_ERRORS, 413],
  }),
};
