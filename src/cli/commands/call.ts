import { signedFetch } from '../../auth/signed-fetch.ts';
import { CliFailure, UsageError, type CommandModule } from '../command.ts';

export const call: CommandModule = {
  options: { token: { type: 'string' }, secret: { type: 'string' }, base: { type: 'string' } },
  async run({ values, positionals }, io) {
    const [method, path, body, ...extra] = positionals;
    if (!method || !path || extra.length > 0) throw new UsageError('expected <METHOD> <path> and at most one JSON body');
    if (!/^[A-Za-z]+$/.test(method)) throw new UsageError(`not an HTTP method: ${method}`);
    if (!path.startsWith('/')) throw new UsageError(`the path must start with "/": ${path}`);
    const token = (values.token as string | undefined) ?? process.env.FULFIL_TOKEN;
    const secret = (values.secret as string | undefined) ?? process.env.FULFIL_SECRET;
    if (!token || !secret) throw new UsageError('credentials: give --token and --secret, or set FULFIL_TOKEN and FULFIL_SECRET');
    const base = (values.base as string | undefined) ?? `http://127.0.0.1:${process.env.PORT || 8080}`;
    if (!URL.canParse(base)) throw new UsageError(`--base: not a URL: ${base}`);

    // The body is sent exactly as typed: a malformed one is a legitimate thing to try.
    let res: Response;
    try {
      res = await signedFetch(base, { token, secret }, method, path, body);
    } catch (err) {
      // fetch says only "fetch failed"; the reason (refused, unknown host, timeout) is its cause.
      const cause = (err as Error).cause as (Error & { code?: string }) | undefined;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new CliFailure(`cannot reach ${base} (${why}); is the service running there? (--base or PORT choose another address)`);
    }
    io.out(`${res.status} ${res.statusText}`);
    const text = await res.text();
    if (text !== '') io.out(prettyJson(text));
    return res.ok ? 0 : 1;
  },
};

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
