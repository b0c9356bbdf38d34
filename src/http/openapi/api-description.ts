import { ERROR_STATUSES } from './error-responses.ts';

const errorTable = Object.entries(ERROR_STATUSES)
  .map(([status, [code, when]]) => `| ${status} | \`${code}\` | ${when} |`)
  .join('\n');

/** What a newcomer needs before the first call: the document's header, in markdown. */
const DESCRIPTION = `
The fulfilment service of a ticket marketplace: sellers accept orders, each accepted order gets a
shipment, the seller (and, for local pickup, the buyer) says how the tickets are delivered, and the
seller completes the shipment. Offices list their ticket inventory. The full reference, with
examples and the fixture format, is \`docs/API.md\` in the repository.

## Signing every /v9 request

Send \`X-Token: <token>\` and \`X-Signature: base64(HMAC-SHA256(secret, S))\`, where

    S = METHOD + " " + host + path + "?" + rest

- **host**: the host name you call, without port (\`api.example.com\`);
- **path**: e.g. \`/v9/inventory\`;
- **rest**: for a request with a body, the body bytes exactly as sent; otherwise the query with its
  pairs percent-encoded (RFC 3986, space as \`%20\`) and sorted by encoded key
  (\`office_id=10&page%5Bcursor%5D=1&page%5Bitems%5D=2\`), empty when there is none. The \`?\` is always there.

Also accepted, for existing clients: the query exactly as sent, the query stable-sorted by top-level
name (the part before \`[\`), and the host with its port. Test vector: secret
\`/3uZ9bXNe/6rxEBmlGLvoRXrcSzRDMfyJSewhlrc\`, \`S = GET api.sandbox.ticketevolution.com/test?one=1&three=three&two=two\`
→ \`8eaaqg6d4DJ2SEWkCvkdhc05dITmpNbUrcbN75UBGMA=\`.
\`GET /v9/credentials/current\` answers who you are: a 200 proves your signing.

**Trying it here:** press *Authorize* and sign in once with your token and your **secret** (a
password box): this page signs each request with the secret in your browser (X-Signature, with
WebCrypto, so open it as \`http://127.0.0.1\`, \`localhost\` or over https); the secret is never sent. The token and the
secret stay in this page's memory only: nothing is stored in the browser, and a reload forgets
them. With the demo data (\`fulfil start --seed fixtures/demo.json\`), order 700 and the example
body accept as Acme's API credential.

## Roles

An order has a seller (the brokerage owning its seller office) and a buyer brokerage. Both read
it; accept, mobile transfer, seller pickup details and complete are the seller's (the buyer gets
403); buyer pickup details are the buyer's. Any other brokerage gets 404, as if the order did not
exist. API and user credentials both act for their brokerage.

## Shipment ids change (rule U1)

Every successful \`PUT /v9/shipments/:id\` replaces the shipment and answers the **new** id; the old
id then answers 410 \`shipment_replaced\` with \`replaced_by\`, the live id. Complete keeps the id.
The buyer of a local pickup finds the shipment id with \`GET /v9/orders/:id\`.

## Commands: Idempotency-Key and Prefer: respond-async

Accept, update and complete are commands. With \`Idempotency-Key\`, sending the same request again
answers the first response and changes nothing (409 if the key comes with another request). With
\`Prefer: respond-async\` (or when a command outlasts the server's wait) the answer is 202 with
\`Location: /v9/commands/<id>\`; \`GET\` it until \`response\` holds what the call would have answered.

## Errors

Every error is \`{"errors":[{"code":"…","message":"…"}]}\`; a 400 adds \`field\`, a 410 \`replaced_by\`.

| status | code | when |
|---|---|---|
${errorTable}
`.trim();

export function describeApi(service: { name: string; version: string }) {
  return {
    openapi: '3.1.0',
    info: {
      title: `${service.name} API`,
      version: service.version,
      description: DESCRIPTION,
    },
    // Every deployment serves its own document: the scheme and host are the ones you call.
    servers: [
      {
        url: '{scheme}://{host}',
        description: 'the service you run (npm start listens on 127.0.0.1:8080)',
        variables: { scheme: { enum: ['http', 'https'], default: 'http' }, host: { default: '127.0.0.1:8080' } },
      },
    ],
    tags: [
      { name: 'Orders', description: 'Accept an order; read it and its history' },
      { name: 'Shipments', description: 'Say how the tickets are delivered, complete, read' },
      {
        name: 'E-tickets',
        description:
          'Files of a shipment: e-tickets for the buyer (upload, list, download, one-time links) and proofs of a mobile transfer',
      },
      {
        name: 'Delivery issues',
        description:
          'The buyer says the tickets did not arrive: the seller reissues or answers, the buyer resolves or escalates; the evidence of delivery',
      },
      {
        name: 'Holds',
        description:
          'An order that waits for a reason (the venue, a fraud review, the buyer): completion and uploads wait, the deadline waits and moves by the time held',
      },
      {
        name: 'Mailed tickets',
        description:
          "Tickets sent by a carrier: the mailed type and address, the airbill (bought or uploaded), tracking numbers and scans, the carrier's webhooks",
      },
      { name: 'Inventory', description: "An office's ticket groups" },
      { name: 'Events', description: "Every event of your brokerage's orders, paged or long-polled" },
      { name: 'Commands', description: 'Results of commands answered 202' },
      { name: 'Credentials', description: 'Signing self-tests' },
      { name: 'Test mode', description: 'Practise on test orders with a test credential (sandbox data, never live)' },
      { name: 'Webhooks', description: "A brokerage's webhook endpoints, their deliveries log, redelivery and replay" },
      { name: 'Service', description: 'Front door and health checks (no credential)' },
    ],
    components: {
      securitySchemes: {
        token: { type: 'apiKey' as const, in: 'header', name: 'X-Token', description: "the credential's token (32 letters and digits)" },
        signature: {
          type: 'apiKey' as const,
          in: 'header',
          name: 'X-Signature',
          description:
            'base64 HMAC-SHA256 of the request with the credential\'s secret (see "Signing every /v9 request"). In this page, enter the SECRET: the page computes the signature.',
        },
      },
    },
  };
}
