import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makePdf } from './test-files.ts';

const DIR = join(import.meta.dirname, '..', 'easypost');
/** A recorded EasyPost answer (test/easypost/*.json), its label URLs pointing at `base`. */
export const recorded = (name: string, base = '') => JSON.parse(readFileSync(join(DIR, name), 'utf8').replaceAll('{{BASE}}', base));
export const recordedText = (name: string) => readFileSync(join(DIR, name), 'utf8');

export type StubMode = 'ok' | 'error' | 'hang';

/**
 * A local stand-in for api.easypost.com/v2 answering the documented shapes recorded in
 * test/easypost/: create a shipment (rates), buy it (label, tracking code, tracker), the label
 * PDF, trackers. `mode` makes it refuse as EasyPost does (422 with its error object) or never answer.
 */
export async function startEasyPostStub() {
  const calls: { method: string; path: string; body: unknown; auth: string | undefined }[] = [];
  let mode: StubMode = 'ok';
  let buyDelayMs = 0;
  let boughtCode: string | undefined;
  const label = await makePdf(1, 'UPS label');
  const hanging: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0]!;
      calls.push({ method: req.method ?? '', path, body: text ? JSON.parse(text) : null, auth: req.headers.authorization });
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (path.startsWith('/labels/')) return res.writeHead(200, { 'content-type': 'application/pdf' }).end(label);
      if (mode === 'hang') return void hanging.push(res);
      if (mode === 'error') return json(422, recorded('error-address.json'));
      if (req.method === 'POST' && path === '/v2/shipments') return json(201, recorded('shipment-created.json'));
      if (req.method === 'POST' && /^\/v2\/shipments\/shp_\w+\/buy$/.test(path)) {
        if (buyDelayMs > 0) return void setTimeout(() => answerBuy(), buyDelayMs);
        return answerBuy();
      }
      function answerBuy() {
        // The label of the rate asked for, as EasyPost answers a purchase.
        const rateId = (JSON.parse(text) as { rate?: { id?: string } }).rate?.id;
        const rate = (recorded('shipment-created.json').rates as { id: string }[]).find((r) => r.id === rateId);
        if (!rate)
          return json(422, { error: { code: 'SHIPMENT.RATE.INVALID', message: `No rate ${rateId} on this shipment.`, errors: [] } });
        const bought = recorded('shipment-bought.json', base);
        if (!boughtCode) return json(200, { ...bought, selected_rate: rate });
        // Another envelope: its own number and tracker.
        const tracker = { ...bought.tracker, id: `trk_${boughtCode.toLowerCase()}`, tracking_code: boughtCode };
        return json(200, { ...bought, id: `shp_${boughtCode.toLowerCase()}`, tracking_code: boughtCode, tracker, selected_rate: rate });
      }
      if (req.method === 'POST' && /^\/v2\/shipments\/shp_\w+\/refund$/.test(path)) {
        // Refund a Shipment: the shipment, its refund_status `submitted` (docs.easypost.com/docs/shipments/shipping-refund).
        return json(200, { ...recorded('shipment-bought.json', base), refund_status: 'submitted' });
      }
      if (req.method === 'POST' && path === '/v2/trackers') {
        // The recorded tracker, for the number asked for: another number is another tracker.
        const tracker = recorded('shipment-bought.json').tracker as { id: string; tracking_code: string };
        const code = (JSON.parse(text) as { tracker?: { tracking_code?: string } }).tracker?.tracking_code ?? tracker.tracking_code;
        if (code === tracker.tracking_code) return json(201, tracker);
        return json(201, { ...tracker, id: `trk_${code.toLowerCase()}`, tracking_code: code });
      }
      json(404, { error: { code: 'NOT_FOUND', message: 'The requested resource could not be found.', errors: [] } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    baseUrl: `${base}v2/`,
    calls,
    label,
    setMode(m: StubMode) {
      mode = m;
    },
    /** A purchase answered this much later (a slow carrier: requests racing to buy meet meanwhile). */
    setBuyDelay(ms: number) {
      buyDelayMs = ms;
    },
    /** The number (and tracker) of the labels bought from now on; undefined: the recorded one. */
    setBoughtCode(code: string | undefined) {
      boughtCode = code;
    },
    async close() {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Signs a webhook body exactly as EasyPost does: X-Hmac-Signature `hmac-sha256-hex=` + HMAC-SHA256(secret NFKD, body). */
export function easypostSignature(secret: string, body: string): string {
  return `hmac-sha256-hex=${createHmac('sha256', Buffer.from(secret.normalize('NFKD'), 'utf8'))
    .update(body, 'utf8')
    .digest('hex')}`;
}
