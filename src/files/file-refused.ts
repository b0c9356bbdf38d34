import type { FileMediaType } from '../db/schema/files.ts';

/** Why a file was refused: the reason a refusal is counted by (fulfil_file_uploads_refused_total). */
export type RefusalReason =
  | 'bad_base64'
  | 'too_large'
  | 'not_pdf'
  | 'truncated'
  | 'encrypted'
  | 'decoded_too_large'
  | 'too_complex'
  | 'not_image'
  | 'too_many_pixels'
  | 'page_count'
  | 'too_many_files'
  | 'too_slow';

export class FileRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** What a file was checked to be; kept beside its bytes (stored_files). */
export interface FileFacts {
  mediaType: FileMediaType;
  bytes: number;
  pages: number | null;
  width: number | null;
  height: number | null;
}
