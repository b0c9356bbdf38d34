import type { FastifyReply } from 'fastify';
import type { LinkDescription } from '../../domain/download-links.ts';
import { escapeHtml as h } from '../../ops/html.ts';

/**
 * The page a one-time link opens: no script, no outside resource, one form whose button POSTs to
 * the same address. The CSP allows exactly that (inline style, a form to this origin); the page is
 * never cached, framed, or sent as a Referer.
 */
export const LINK_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1d232a}
button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:.3rem;background:#0b5cad;color:#fff;cursor:pointer}
.small{color:#56606b;font-size:.9rem}`;

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', LINK_PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'private, no-store')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<meta name="robots" content="noindex"><title>${h(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`,
    );
}

const sizeText = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;

/** The page of a working link: what it downloads and until when, and the button that uses it up. */
export function linkPage(reply: FastifyReply, link: LinkDescription) {
  const what = `${link.seat ? `seat ${h(link.seat)} of ` : ''}order ${h(link.orderOid)}`;
  const pages = link.pages === null ? '' : `, ${link.pages} page${link.pages === 1 ? '' : 's'}`;
  const until = link.expiresAt.toISOString().replace('T', ' ').slice(0, 16);
  return page(
    reply,
    200,
    'Your e-ticket',
    `<h1>Your e-ticket</h1><p>The e-ticket for ${what}: a PDF${pages}, ${sizeText(link.bytes)}.</p>` +
      `<form method="post"><button type="submit">Download the e-ticket</button></form>` +
      `<p class="small">This link works once: the download uses it up. It works until ${until} UTC.</p>`,
  );
}

/** The page of a link unknown, expired or used: the same for all three, as the API's 404. */
export function goneLinkPage(reply: FastifyReply) {
  return page(
    reply,
    404,
    'Link not valid',
    `<h1>This link does not work</h1><p>It is unknown, has expired, or was already used to download the e-ticket. ` +
      `Ask whoever sent it for a new link.</p>`,
  );
}
