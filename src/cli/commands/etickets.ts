import { readFile, writeFile } from 'node:fs/promises';
import { signedFetch } from '../../auth/signed-fetch.ts';
import { intArg, UsageError, type CliArgs, type CommandModule } from '../command.ts';
import { serviceBase, SIGNED_CALL_OPTIONS, signedCall } from './call.ts';

/** Comma-separated values of an option, one per file (`--seats 12,13`). */
function perFile(values: CliArgs['values'], name: string, files: number): (string | undefined)[] {
  const given = values[name];
  if (typeof given !== 'string') return Array.from({ length: files }, () => undefined);
  const parts = given.split(',').map((p) => p.trim());
  if (parts.length !== files)
    throw new UsageError(`--${name}: ${parts.length} values for ${files} file${files === 1 ? '' : 's'}; give one per file`);
  return parts;
}

/** `fulfil shipments etickets upload <shipment_id> <file.pdf>…`: the PDFs, base64 in the signed JSON body. */
export const eticketsUpload: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS, seats: { type: 'string' }, barcodes: { type: 'string' } },
  async run({ positionals, values }, io) {
    const [id, ...paths] = positionals;
    if (paths.length === 0) throw new UsageError('expected a shipment id and at least one PDF');
    const shipmentId = intArg(id, 'shipment_id');
    const seats = perFile(values, 'seats', paths.length);
    const barcodes = perFile(values, 'barcodes', paths.length);
    const etickets = await Promise.all(
      paths.map(async (p, i) => {
        let bytes: Buffer;
        try {
          bytes = await readFile(p);
        } catch (err) {
          throw new UsageError(`cannot read ${p}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        return {
          eticket: bytes.toString('base64'),
          ...(seats[i] ? { seat: seats[i] } : {}),
          ...(barcodes[i] ? { barcode: barcodes[i] } : {}),
        };
      }),
    );
    return signedCall(values, 'POST', `/v9/shipments/${shipmentId}/etickets`, JSON.stringify({ etickets }), io);
  },
};

/** `fulfil shipments etickets list <shipment_id>`. */
export const eticketsList: CommandModule = {
  options: SIGNED_CALL_OPTIONS,
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one shipment id');
    return signedCall(values, 'GET', `/v9/shipments/${intArg(positionals[0], 'shipment_id')}/etickets`, undefined, io);
  },
};

/** `fulfil shipments etickets get <shipment_id> <eticket_id> [--out file.pdf]`: the PDF, to a file. */
export const eticketsGet: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS, out: { type: 'string' } },
  async run({ positionals, values }, io) {
    if (positionals.length !== 2) throw new UsageError('expected a shipment id and an e-ticket id');
    const shipmentId = intArg(positionals[0], 'shipment_id');
    const eticketId = intArg(positionals[1], 'eticket_id');
    const token = (values.token as string | undefined) ?? process.env.FULFIL_TOKEN;
    const secret = (values.secret as string | undefined) ?? process.env.FULFIL_SECRET;
    if (!token || !secret) throw new UsageError('credentials: give --token and --secret, or set FULFIL_TOKEN and FULFIL_SECRET');
    const base = serviceBase(values);
    if (!URL.canParse(base)) throw new UsageError(`--base: not a URL: ${base}`);
    const res = await signedFetch(base, { token, secret }, 'GET', `/v9/shipments/${shipmentId}/etickets/${eticketId}`);
    if (!res.ok) {
      io.err(`fulfil shipments etickets get: ${await refusalSentence(res)}`);
      return 1;
    }
    const out = (values.out as string | undefined) ?? `eticket-${eticketId}.pdf`;
    const bytes = Buffer.from(await res.arrayBuffer());
    await writeFile(out, bytes);
    io.out(`wrote ${out} (${bytes.length} bytes, sha256 ${(res.headers.get('etag') ?? '').replaceAll('"', '')})`);
    return 0;
  },
};

/** A refusal said in words: the status and the service's messages (`404 Not Found: no e-ticket 7 of shipment 5`). */
export async function refusalSentence(res: Response): Promise<string> {
  const text = await res.text();
  let messages: string[] = [];
  try {
    const body = JSON.parse(text) as { errors?: Array<{ message?: string }> };
    messages = (body.errors ?? []).flatMap((e) => (typeof e.message === 'string' ? [e.message] : []));
  } catch {
    if (text.trim()) messages = [text.trim()];
  }
  return `${res.status} ${res.statusText}${messages.length > 0 ? `: ${messages.join('; ')}` : ''}`;
}
