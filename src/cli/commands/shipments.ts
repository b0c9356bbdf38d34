import { snakeJson } from '../snake-json.ts';
import { loadConfig } from '../../config.ts';
import { actorText } from '../../events/actor-text.ts';
import { shipmentHistory } from '../../events/shipment-history.ts';
import { openCliDatabase } from '../database.ts';
import { intArg, UsageError, type CommandModule } from '../command.ts';
import { isoTime } from '../../iso-time.ts';

export const shipmentsHistory: CommandModule = {
  options: { json: { type: 'boolean' } },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new UsageError('expected exactly one shipment id');
    const id = intArg(positionals[0], 'shipment_id');
    const { database } = await openCliDatabase(loadConfig());
    try {
      const history = await shipmentHistory(database.db, id);
      if (!history) {
        io.err(`no shipment ${id}`);
        return 1;
      }
      if (values.json) {
        for (const e of history) io.out(snakeJson(e));
        return 0;
      }
      io.out('SEQ  AT                        KIND            SHIPMENT        FROM                  TO                    BY');
      for (const e of history) {
        const from = e.fromType ? `${e.fromType}/${e.fromState}` : '-';
        const ids = e.shipmentId === null || e.shipmentId === e.newShipmentId ? `${e.newShipmentId}` : `${e.shipmentId}→${e.newShipmentId}`;
        io.out(
          `${String(e.seq).padEnd(5)}${isoTime(e.at).padEnd(26)}${e.kind.padEnd(16)}${ids.padEnd(16)}` +
            `${from.padEnd(22)}${`${e.toType}/${e.toState}`.padEnd(22)}${actorText(e)}${e.commandId ? `, command ${e.commandId}` : ''}`,
        );
      }
      return 0;
    } finally {
      await database.close();
    }
  },
};
