import { createHash } from 'node:crypto';

/** Where a one-time link downloads: outside /v9, whose every route is signed; a link works without credentials. */
export const DOWNLOAD_LINK_PATH = '/eticket_downloads';

/** What is stored of a link's token: its sha256, so the database cannot give a working link away. */
export const linkTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** What logs, traces and metrics may say of a token: the first 8 hex digits of its hash, enough to match a complaint to a link. */
export const linkTokenHint = (token: string): string => `sha256:${linkTokenHash(token).slice(0, 8)}`;

const LINK_IN_PATH = new RegExp(`^${DOWNLOAD_LINK_PATH}/([^/?#]+)`);

/** A request path with a link's token replaced by its hint; any other path unchanged. */
export function withoutLinkToken(path: string): string {
  return path.replace(LINK_IN_PATH, (_whole, token: string) => `${DOWNLOAD_LINK_PATH}/${linkTokenHint(token)}`);
}
