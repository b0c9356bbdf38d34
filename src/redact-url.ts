/**
 * A URL fit for logs and screens: any password replaced by ***, and any query string by ?***
 * (receivers put tokens there: a webhook endpoint's URL is a credential of sorts).
 */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    const query = u.search ? '?***' : '';
    u.search = '';
    return u.toString().replace(/\/$/, '') + query;
  } catch {
    return '(unparseable URL)';
  }
}
