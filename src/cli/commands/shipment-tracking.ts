import { loadConfig } from '../../config.ts';
import { trackingUrlOf } from '../../domain/tracking-numbers.ts';
import { trackingEventsOf } from '../../read/tracking-events.ts';
import { openCliDatabase } from '../database.ts';
import { intArg, UsageError, type CommandModule } from '../command.ts';
import { isoTime } from '../../iso-time.ts';

/** `fulfil shipments tracking <id>`: a mailed shipment's tracking number, carrier page and every scan. */
export const shipmentsTracking: CommandModule = {
  options: { json: { type: 'boolean' } },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one shipment id');
    const id = intArg(positionals[0], 'shipment_id');
    const { database } = await openCliDatabase(loadConfig());
    try {
      const [s] = await database.rows<{ type: string; state: string; trackingNumber: string | null; serviceType: string | null }>(
        `select type, state, tracking_number as "trackingNumber", service_type as "serviceType" from shipments where id = $1::bigint`,
        [id],
      );
      if (!s) {
        io.err(`no shipment ${id}`);
        return 1;
      }
      const events = await trackingEventsOf(database, id);
      const url = trackingUrlOf(s.trackingNumber);
      if (values.json) {
        io.out(JSON.stringify({ shipment_id: id, ...s, trackingUrl: url, events }));
        return 0;
      }
      io.out(`shipment ${id}: ${s.type} ${s.state}${s.serviceType ? ` (${s.serviceType})` : ''}`);
      io.out(`tracking number: ${s.trackingNumber ?? '-'}${url ? `  ${url}` : ''}`);
      if (events.length === 0) {
        io.out('no tracking events');
        return 0;
      }
      io.out('AT                        STATUS            SOURCE   LOCATION                  DESCRIPTION');
      for (const e of events) {
        const source = e.sellerClaim ? 'seller*' : e.source;
        io.out(
          `${isoTime(e.occurredAt).padEnd(26)}${e.status.padEnd(18)}${source.padEnd(9)}${(e.location ?? '-').padEnd(26)}${e.description ?? ''}`,
        );
      }
      if (events.some((e) => e.sellerClaim))
        io.out("* the seller's claim on a shipment the carrier tracks: recorded, not what delivers it");
      return 0;
    } finally {
      await database.close();
    }
  },
};
