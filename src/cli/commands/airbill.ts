import { writeFile } from 'node:fs/promises';
import { intArg, UsageError, type CommandModule } from '../command.ts';
import { SIGNED_CALL_OPTIONS, signedResponse } from './call.ts';
import { refusalSentence } from './etickets.ts';

/** `fulfil shipments airbill <shipment_id> [-o file.pdf]`: a mailed shipment's label, to a file (seller or buyer). */
export const shipmentsAirbill: CommandModule = {
  options: { ...SIGNED_CALL_OPTIONS, out: { type: 'string', short: 'o' } },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new UsageError('expected one shipment id');
    const shipmentId = intArg(positionals[0], 'shipment_id');
    const name = 'fulfil shipments airbill';
    const res = await signedResponse(values, 'GET', `/v9/shipments/${shipmentId}/airbill`, undefined, io, {}, name);
    if (typeof res === 'number') return res;
    if (!res.ok) {
      io.err(`${name}: ${await refusalSentence(res)}`);
      return 1;
    }
    const out = (values.out as string | undefined) ?? `airbill-${shipmentId}.pdf`;
    const bytes = Buffer.from(await res.arrayBuffer());
    await writeFile(out, bytes);
    io.out(`wrote ${out} (${bytes.length} bytes, sha256 ${(res.headers.get('etag') ?? '').replaceAll('"', '')})`);
    return 0;
  },
};
