import { snakeJson } from '../snake-json.ts';
import { loadConfig } from '../../config.ts';
import { actorText } from '../../events/actor-text.ts';
import { shipmentHistory } from '../../events/shipment-history.ts';
import { openCliDatabase } from '../database.ts';
import { intArg, UsageError, type CommandModule } from '../command.ts';
import { isoTime } from '../../iso-time.ts';
import { tableLines } from '../table.ts';

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
      const rows = history.map((e) => [
        String(e.seq),
        isoTime(e.at),
        e.kind,
        e.shipmentId === null || e.shipmentId === e.newShipmentId ? `${e.newShipmentId}` : `${e.shipmentId}→${e.newShipmentId}`,
        e.fromType ? `${e.fromType}/${e.fromState}` : '-',
        `${e.toType}/${e.toState}`,
        `${actorText(e)}${e.commandId ? `, command ${e.commandId}` : ''}`,
      ]);
      for (const line of tableLines(['SEQ', 'AT', 'KIND', 'SHIPMENT', 'FROM', 'TO', 'BY'], rows)) io.out(line);
      return 0;
    } finally {
      await database.close();
    }
  },
};
