import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from './metrics-registry.ts';

const bytesStored = new Counter({
  name: 'fulfil_file_bytes_stored_total',
  help: 'Bytes of files stored (e-tickets, proofs of transfer), by store; a file stored before is not counted again.',
  labelNames: ['store'] as const,
  registers: [metricsRegistry],
});

const filesStored = new Counter({
  name: 'fulfil_files_stored_total',
  help: 'Files stored, by store and whether they were new (new) or already held (known).',
  labelNames: ['store', 'outcome'] as const,
  registers: [metricsRegistry],
});

const uploadsRefused = new Counter({
  name: 'fulfil_file_uploads_refused_total',
  help: 'Uploads refused before anything was stored, by reason (admission: unauthenticated, busy, credential_share, body_too_slow, parse_queue; the file: bad_base64, too_large, not_pdf, truncated, encrypted, decoded_too_large, not_image, too_many_pixels, page_count, too_slow).',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

export function countFileStored(store: string, bytes: number, created: boolean): void {
  filesStored.inc({ store, outcome: created ? 'new' : 'known' });
  if (created) bytesStored.inc({ store }, bytes);
}

export function countUploadRefused(reason: string): void {
  uploadsRefused.inc({ reason });
}

const slotsInUse = new Gauge({
  name: 'fulfil_upload_slots_in_use',
  help: "Upload slots of this API process held now (from admission until the upload's answer is sent).",
  registers: [metricsRegistry],
});

const slotWait = new Histogram({
  name: 'fulfil_upload_slot_wait_seconds',
  help: 'How long admitted uploads waited for an upload slot (those refused after UPLOAD_QUEUE_MS are counted as refusals).',
  buckets: [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30],
  registers: [metricsRegistry],
});

const waiting = new Gauge({
  name: 'fulfil_upload_waiting',
  help: 'Uploads of this API process admitted and waiting for an upload slot now.',
  registers: [metricsRegistry],
});

export function setUploadsWaiting(n: number): void {
  waiting.set(n);
}

export function setUploadSlotsInUse(n: number): void {
  slotsInUse.set(n);
}

export function observeUploadSlotWait(seconds: number): void {
  slotWait.observe(seconds);
}
