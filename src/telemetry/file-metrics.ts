import { Counter } from 'prom-client';
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
  help: 'Uploads refused before anything was stored, by reason (bad_base64, too_large, not_pdf, truncated, encrypted, not_image, too_many_pixels, page_count, busy).',
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
