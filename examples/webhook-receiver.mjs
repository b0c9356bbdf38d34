/**
 * A webhook receiver in plain Node (node:http, no framework): verifies each delivery's
 * Fulfil-Signature with verifyWebhook from @fulfil/client and prints the event, one JSON line
 * per event on stdout. docs/WEBHOOKS.md, "Verifying signatures", explains each step.
 *
 *   WEBHOOK_SECRETS=whsec_... node examples/webhook-receiver.mjs
 *
 * Env: WEBHOOK_SECRETS, the endpoint's signing secret (while rotating: the new and the old one,
 * comma-separated); PORT (default 4000; 0 picks a free one), HOST (default 127.0.0.1).
 */
import { createServer } from 'node:http';
import { DEFAULT_TOLERANCE_SECONDS, WebhookVerificationError, verifyWebhook } from '@fulfil/client';

const secrets = (process.env.WEBHOOK_SECRETS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
if (secrets.length === 0) {
  console.error('set WEBHOOK_SECRETS to the endpoint signing secret (comma-separated while rotating)');
  process.exit(2);
}
/** Event objects are a few KB; anything far larger is not from fulfil. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Event ids already handled: a delivery whose acknowledgement was lost comes again with the same
 * id. The id is read from the verified body, never from the Fulfil-Event-Id header: the header is
 * not signed, so a captured delivery replayed with a new header value would pass as a new event.
 */
const seen = new Set();

const server = createServer((req, res) => {
  if (req.method !== 'POST') return answer(res, 405, { error: 'POST only' });
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      answer(res, 413, { error: 'body too large' });
      req.destroy();
    } else chunks.push(chunk);
  });
  req.on('end', () => {
    // Verify the bytes exactly as received: a parsed and re-serialised body would not match.
    const raw = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = verifyWebhook(req.headers, raw, secrets, { toleranceSeconds: DEFAULT_TOLERANCE_SECONDS });
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      console.error(`refused: ${err.code}: ${err.message}`);
      return answer(res, 400, { error: err.code });
    }
    if (!seen.has(event.id)) {
      seen.add(event.id);
      console.log(JSON.stringify(event));
    }
    // Any 2xx acknowledges; answer fast and do slow work afterwards.
    answer(res, 204);
  });
});

function answer(res, status, body) {
  if (res.headersSent) return;
  res.writeHead(status, body ? { 'content-type': 'application/json' } : {});
  res.end(body ? JSON.stringify(body) : undefined);
}

server.listen(Number(process.env.PORT ?? 4000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.error(`webhook receiver listening on http://${address}:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));
