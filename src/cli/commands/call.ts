import { signedFetch } from '../../auth/signed-fetch.ts';
import { loadConfig } from '../../config.ts';
import { runningServiceUrl } from '../../service/service-address.ts';
import { UsageError, type CliArgs, type CliIo, type CommandModule } from '../command.ts';

/** The options of every command that calls the running service with a credential. */
export const SIGNED_CALL_OPTIONS = { token: { type: 'string' }, secret: { type: 'string' }, base: { type: 'string' } } as const;

export const call: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS, header: { type: 'string', short: 'H', multiple: true } },
  async run({ values, positionals }, io) {
    const [method, path, body, ...extra] = positionals;
    if (!method || !path || extra.length > 0) throw new UsageError('expected <METHOD> <path> and at most one JSON body');
    if (!/^[A-Za-z]+$/.test(method)) throw new UsageError(`not an HTTP method: ${method}`);
    if (!path.startsWith('/')) throw new UsageError(`the path must start with "/": ${path}`);
    const res = await signedResponse(values, method, path, body, io, headersOf(values.header));
    if (typeof res === 'number') return res;
    // The status to stderr, the body alone to stdout as it came (D-168): `> label.pdf` is the PDF.
    io.err(`${res.status} ${res.statusText}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (io.write && !io.outIsTTY) await io.write(bytes);
    else if (bytes.length > 0) io.out(prettyJson(new TextDecoder().decode(bytes)));
    return res.ok ? 0 : 1;
  },
};

/** `-H 'Name: value'`, as curl takes it; the signature's own headers are the CLI's to set. */
function headersOf(given: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of (given as string[] | undefined) ?? []) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(h);
    if (!m) throw new UsageError(`-H: expected 'Name: value', got ${JSON.stringify(h)}`);
    const name = m[1]!.toLowerCase();
    if (name === 'x-token' || name === 'x-signature') throw new UsageError(`-H: ${m[1]} is set by the signature (--token, --secret)`);
    headers[name] = m[2]!.trim();
  }
  return headers;
}

/**
 * Where to call: --base; else the address the running service of this DATA_DIR left (D-134);
 * else http://127.0.0.1:$PORT (8080).
 */
export function serviceBase(values: CliArgs['values']): string {
  const given = values.base as string | undefined;
  if (given) return given;
  return runningServiceUrl(dataDir()) ?? `http://127.0.0.1:${process.env.PORT || 8080}`;
}

function dataDir(): string {
  try {
    return loadConfig().DATA_DIR;
  } catch {
    return process.env.DATA_DIR || '.data'; // a setting the call does not need is wrong: still find the service
  }
}

/** Sends one signed request with the credential of the options or the environment; prints status and JSON; 0 on 2xx. */
export async function signedCall(
  values: CliArgs['values'],
  method: string,
  path: string,
  body: string | undefined,
  io: CliIo,
  headers: Record<string, string> = {},
): Promise<number> {
  const res = await signedResponse(values, method, path, body, io, headers);
  if (typeof res === 'number') return res;
  io.out(`${res.status} ${res.statusText}`);
  const text = await res.text();
  if (text !== '') io.out(prettyJson(text));
  return res.ok ? 0 : 1;
}

/** The signed request's response; an exit status when the service could not be reached (said on stderr). */
export async function signedResponse(
  values: CliArgs['values'],
  method: string,
  path: string,
  body: string | undefined,
  io: CliIo,
  headers: Record<string, string> = {},
  name = 'fulfil call',
): Promise<Response | number> {
  const token = (values.token as string | undefined) ?? process.env.FULFIL_TOKEN;
  const secret = (values.secret as string | undefined) ?? process.env.FULFIL_SECRET;
  if (!token || !secret) throw new UsageError('credentials: give --token and --secret, or set FULFIL_TOKEN and FULFIL_SECRET');
  const base = serviceBase(values);
  if (!URL.canParse(base)) throw new UsageError(`--base: not a URL: ${base}`);

  // The body is sent exactly as typed: a malformed one is a legitimate thing to try.
  try {
    return await signedFetch(base, { token, secret }, method, path, body, headers);
  } catch (err) {
    io.err(`${name}: cannot reach ${new URL(base).origin} (${unreachableReason(err)}); set --base or PORT`);
    return 1;
  }
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
};

/** fetch fails with "fetch failed" and the socket error as its cause; say it in words. */
function unreachableReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return (code && REASONS[code]) ?? code ?? cause?.message ?? (err as Error).message;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
