import { intArg, UsageError, type CliArgs, type CliIo, type CommandModule } from '../command.ts';
import { SIGNED_CALL_OPTIONS, signedCall } from './call.ts';

/**
 * `fulfil webhooks …`: each command is one signed call to the running service's
 * /v9/webhook_endpoints routes with the caller's credential, so it manages exactly what that
 * brokerage's credential may (and queues redeliveries where the service does).
 */
function command(
  options: CommandModule['options'],
  toRequest: (args: CliArgs) => { method: string; path: string; body?: object },
): CommandModule {
  return {
    options: { ...SIGNED_CALL_OPTIONS, ...options },
    async run(args: CliArgs, io: CliIo) {
      const { method, path, body } = toRequest(args);
      return signedCall(args.values, method, path, body === undefined ? undefined : JSON.stringify(body), io);
    },
  };
}

function onlyId(positionals: string[]): number {
  if (positionals.length !== 1) throw new UsageError('expected exactly one endpoint id');
  return intArg(positionals[0], 'endpoint id');
}

const kinds = (v: string | boolean | undefined) => (typeof v === 'string' ? v.split(',').map((k) => k.trim()) : undefined);
const base = '/v9/webhook_endpoints';

export const webhooksList = command({}, ({ positionals }) => {
  if (positionals.length > 0) throw new UsageError('expected no arguments');
  return { method: 'GET', path: base };
});

export const webhooksCreate = command({ kinds: { type: 'string' }, disabled: { type: 'boolean' } }, ({ positionals, values }) => {
  if (positionals.length !== 1) throw new UsageError('expected exactly one URL');
  return {
    method: 'POST',
    path: base,
    body: { url: positionals[0], event_kinds: kinds(values.kinds), ...(values.disabled ? { enabled: false } : {}) },
  };
});

export const webhooksShow = command({}, ({ positionals }) => ({ method: 'GET', path: `${base}/${onlyId(positionals)}` }));

/** `--enabled true|false`, named as the API field is; `--enable` and `--disable` say the same. */
function enabledOf(values: CliArgs['values']): boolean | undefined {
  const said: boolean[] = [];
  if (values.enabled !== undefined) {
    if (values.enabled !== 'true' && values.enabled !== 'false')
      throw new UsageError(`--enabled: expected true or false, got ${String(values.enabled)}`);
    said.push(values.enabled === 'true');
  }
  if (values.enable) said.push(true);
  if (values.disable) said.push(false);
  if (said.length > 1) throw new UsageError('give one of --enabled, --enable and --disable');
  return said[0];
}

export const webhooksUpdate = command(
  {
    url: { type: 'string' },
    kinds: { type: 'string' },
    enabled: { type: 'string' },
    enable: { type: 'boolean' },
    disable: { type: 'boolean' },
  },
  ({ positionals, values }) => {
    const enabled = enabledOf(values);
    return {
      method: 'PATCH',
      path: `${base}/${onlyId(positionals)}`,
      body: { url: values.url, event_kinds: kinds(values.kinds), enabled },
    };
  },
);

export const webhooksDelete = command({}, ({ positionals }) => ({ method: 'DELETE', path: `${base}/${onlyId(positionals)}` }));

export const webhooksRotateSecret = command({ 'grace-seconds': { type: 'string' } }, ({ positionals, values }) => {
  const grace = values['grace-seconds'];
  return {
    method: 'POST',
    path: `${base}/${onlyId(positionals)}/rotate_secret`,
    body: grace === undefined ? {} : { grace_seconds: intArg(grace as string, '--grace-seconds') },
  };
});

export const webhooksDeliveries = command(
  { limit: { type: 'string' }, 'before-id': { type: 'string' }, order: { type: 'string' } },
  ({ positionals, values }) => {
    const query = new URLSearchParams();
    if (values.limit !== undefined) query.set('limit', String(intArg(values.limit as string, '--limit')));
    if (values['before-id'] !== undefined) query.set('before_id', String(intArg(values['before-id'] as string, '--before-id')));
    if (values.order !== undefined) query.set('order_id', String(intArg(values.order as string, '--order')));
    const q = query.toString();
    return { method: 'GET', path: `${base}/${onlyId(positionals)}/deliveries${q ? `?${q}` : ''}` };
  },
);

export const webhooksRedeliver = command({}, ({ positionals }) => {
  const [id, eventId, ...rest] = positionals;
  if (!id || !eventId || rest.length > 0) throw new UsageError('expected an endpoint id and an event id');
  return { method: 'POST', path: `${base}/${intArg(id, 'endpoint id')}/redeliver`, body: { event_id: eventId } };
});

export const webhooksReplay = command({ order: { type: 'string' }, since: { type: 'string' } }, ({ positionals, values }) => {
  const id = onlyId(positionals);
  if ((values.order === undefined) === (values.since === undefined)) throw new UsageError('give exactly one of --order and --since');
  const body = values.order !== undefined ? { order_id: intArg(values.order as string, '--order') } : { since: values.since };
  return { method: 'POST', path: `${base}/${id}/redeliver`, body };
});

export const webhooksPing = command({}, ({ positionals }) => ({ method: 'POST', path: `${base}/${onlyId(positionals)}/ping`, body: {} }));
