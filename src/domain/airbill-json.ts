import type { FileSet } from '../db/sql/file-sets.ts';

/** What the answers and events say of a label: where to get it and what it is, never its bytes. */
export function airbillJson(shipmentId: number, set: Pick<FileSet, 'files'>, source: 'purchased' | 'uploaded', by: 'seller' | 'buyer') {
  const f = set.files[0]!;
  return { url: `/v9/shipments/${shipmentId}/airbill`, sha256: f.sha256, bytes: f.bytes, pages: f.pages ?? 1, source, uploaded_by: by };
}

/** A label set remembers how it came: a purchase names its provider in the file's note. */
export function labelSource(set: Pick<FileSet, 'files'>): 'purchased' | 'uploaded' {
  return set.files[0]?.note?.startsWith('purchased') ? 'purchased' : 'uploaded';
}
