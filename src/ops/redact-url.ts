/** A connection URL fit for logs and screens: any password replaced by ***. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable URL)';
  }
}
