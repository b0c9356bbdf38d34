import { connect } from 'node:net';
import { signedFetch } from '../src/auth/signed-fetch.ts';
import { makeBombPdf, makeLargePng, makePdf } from '../test/support/test-files.ts';
import { SELLER } from './commands/flows.ts';

type Call = (
  cred: typeof SELLER,
  method: string,
  path: string,
  body?: object,
) => Promise<{ status: number; bytes: Buffer; json(): { id: number } }>;

interface Deps {
  base: string;
  pid: number;
  call: Call;
  say: (line: string) => void;
  shipment: () => Promise<number>;
  pct: (xs: number[], p: number) => number;
  cpuMsOf: (pid: number) => number;
  rssOf: (pid: number) => number;
}

const MIB = 2 ** 20;

/**
 * The cost of one file to the service process, each alone and three times: its CPU (all the
 * process's threads, from /proc) and its peak resident memory above the idle process (sampled
 * every 10 ms), then the resident memory 8 s after the answer (whether it came back). Then an
 * ordinary signed GET, timed one after another, while one seller sends 10 uploads at once and two
 * unauthenticated sockets drip the head of an upload.
 */
export async function hostileFiles(d: Deps): Promise<void> {
  const files: { name: string; route: 'etickets' | 'proof'; bytes: Buffer }[] = [
    { name: 'valid 10 MiB PDF', route: 'etickets', bytes: await makePdf(1, 'large', 10 * MIB - 4096) },
    { name: 'FlateDecode bomb (512 MiB inflated)', route: 'etickets', bytes: await makeBombPdf(512 * MIB) },
    { name: '16 MP PNG, 16-bit RGBA', route: 'proof', bytes: await makeLargePng(4000, 4000, 16) },
    { name: '16 MP PNG, 8-bit RGBA (taken)', route: 'proof', bytes: await makeLargePng(4000, 4000, 8) },
  ];
  d.say(
    'file | bytes | answer | CPU ms (max of 3) | peak RSS above idle (max of 3) | RSS above idle 8 s after (max of 3) | idle RSS before each round',
  );
  for (const f of files) {
    let cpu = 0;
    let peakAbove = 0;
    let after = 0;
    let status = 0;
    const idles: number[] = [];
    for (let round = 0; round < 3; round++) {
      let id = await d.shipment();
      if (f.route === 'proof') {
        const updated = await d.call(SELLER, 'PUT', `/v9/shipments/${id}`, { mobile_transfer_type: 'XMobile' });
        id = updated.json().id;
      }
      const body =
        f.route === 'etickets'
          ? { etickets: [{ eticket: f.bytes.toString('base64') }] }
          : { files: [{ file: f.bytes.toString('base64') }] };
      const path = f.route === 'etickets' ? `/v9/shipments/${id}/etickets` : `/v9/shipments/${id}/transfer_verifications`;
      await new Promise((r) => setTimeout(r, 1_000));
      const idle = d.rssOf(d.pid);
      idles.push(idle);
      let peak = idle;
      const sampler = setInterval(() => (peak = Math.max(peak, d.rssOf(d.pid))), 10);
      const cpu0 = d.cpuMsOf(d.pid);
      const res = await d.call(SELLER, 'POST', path, body);
      cpu = Math.max(cpu, d.cpuMsOf(d.pid) - cpu0);
      clearInterval(sampler);
      status = res.status;
      peakAbove = Math.max(peakAbove, peak - idle);
      await new Promise((r) => setTimeout(r, 8_000));
      after = Math.max(after, d.rssOf(d.pid) - idle);
    }
    d.say(
      `${f.name} | ${(f.bytes.length / 1024).toFixed(0)} KiB | ${status} | ${cpu.toFixed(0)} | ${(peakAbove / MIB).toFixed(0)} MiB | ${(after / MIB).toFixed(0)} MiB | ${idles.map((i) => (i / MIB).toFixed(0)).join(' → ')} MiB`,
    );
  }

  // The abuse beside an ordinary read.
  const readId = await d.shipment();
  const gets: number[] = [];
  const port = new URL(d.base).port;
  const drips = [0, 1].map(() => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v9/shipments/1/etickets HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 20971520\r\n\r\n`,
    );
    const timer = setInterval(() => socket.writable && socket.write('xxxx'), 1_000);
    return { socket, timer };
  });
  const pdfs = await Promise.all(Array.from({ length: 10 }, (_, i) => makePdf(1, `abuse ${i}`, 10 * MIB - 4096)));
  const targets = await Promise.all(pdfs.map(() => d.shipment()));
  let uploading = true;
  const statuses = new Map<number, number>();
  const uploads = Promise.all(
    pdfs.map(async (pdf, i) => {
      const res = await d.call(SELLER, 'POST', `/v9/shipments/${targets[i]}/etickets`, { etickets: [{ eticket: pdf.toString('base64') }] });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }),
  ).finally(() => (uploading = false));
  while (uploading) {
    const t = performance.now();
    const res = await signedFetch(d.base, SELLER, 'GET', `/v9/shipments/${readId}`);
    await res.arrayBuffer();
    gets.push(performance.now() - t);
  }
  await uploads;
  for (const drip of drips) {
    clearInterval(drip.timer);
    drip.socket.destroy();
  }
  d.say(
    `signed GET /v9/shipments/:id while 10 uploads of 10 MiB from one seller and 2 unauthenticated drips run: ${gets.length} GETs, p50 ${d.pct(gets, 50).toFixed(0)} ms, p99 ${d.pct(gets, 99).toFixed(0)} ms; uploads answered ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}`,
  );
}
