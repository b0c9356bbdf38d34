/**
 * Lets "Try it out" in /docs call /v9: the X-Signature box of Authorize takes the credential's
 * SECRET, and this script, run by the page before each request, replaces it with the request's
 * signature (HMAC-SHA256 over METHOD host path?query-or-body, base64), computed in the browser
 * with WebCrypto; the secret never leaves the page. Plain browser JavaScript, kept as text so
 * that no build step touches it; test/unit/sign-in-browser.test.ts runs it against the signer.
 */
export const SIGN_IN_BROWSER_JS = `
window.fulfilSign = async function (req) {
  var url = new URL(req.url, window.location.href);
  if (url.pathname.indexOf('/v9/') !== 0) return req;
  var headers = req.headers || {};
  var secretKey = Object.keys(headers).find(function (k) { return k.toLowerCase() === 'x-signature'; });
  if (!secretKey || !headers[secretKey]) return req;
  var secret = String(headers[secretKey]);
  delete headers[secretKey];
  var body = req.body === undefined || req.body === null ? '' : String(req.body);
  var rest = body !== '' ? body : url.search.slice(1);
  var toSign = String(req.method).toUpperCase() + ' ' + url.hostname + url.pathname + '?' + rest;
  var enc = new TextEncoder();
  var key = await crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  var mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(toSign)));
  var bin = '';
  for (var i = 0; i < mac.length; i++) bin += String.fromCharCode(mac[i]);
  headers['X-Signature'] = btoa(bin);
  req.headers = headers;
  return req;
};
`;

// Swagger UI's configuration is written into its page as source text; a function built from
// text keeps exactly this text (no compiler helper can creep in).
export const signInBrowserInterceptor = new Function('req', 'return window.fulfilSign ? window.fulfilSign(req) : req;') as <R>(req: R) => R;
