/** HTML-escapes any value; everything that reaches an operator page goes through it, numbers included. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Whether a path is one of the operator pages' (they answer people, in HTML, even when unknown). */
export function isOpsPath(url: string): boolean {
  const path = url.split('?')[0]!;
  return path === '/ops' || path.startsWith('/ops/');
}

/** The page for an /ops path that is not one: what was asked, and where the pages are. */
export function opsNotFoundPage(method: string, url: string): string {
  const path = escapeHtml(url.split('?')[0]);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>not found · fulfil ops</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:14px system-ui,sans-serif;margin:1.5em 2em;color:#222}.problem{border:1px solid #e0a0a0;background:#fdf0f0;color:#8a1020;padding:.5em .8em;border-radius:4px;display:inline-block}</style>
</head><body>
<h1>Not found</h1>
<p class="problem" id="problem" role="alert">There is no operator page ${escapeHtml(method)} ${path}.</p>
<p>The pages: <a href="/ops/orders">orders</a> (find one, or open it by id), <a href="/ops/queues">queues</a>.</p>
</body></html>`;
}
