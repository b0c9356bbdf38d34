import { PDFDocument } from 'pdf-lib';

/**
 * What the simulated seller delivers as e-tickets: one small single-page PDF per ticket, each
 * saying it is a sandbox ticket, with its seat and barcode (seats "1" to the quantity), so that
 * a delivery issue may name a seat. `round` tells a reissue's files and barcodes from the first.
 */
export async function sampleEtickets(
  orderId: number,
  quantity: number,
  round = 0,
): Promise<Array<{ eticket: string; seat: string; barcode: string }>> {
  const tickets = [];
  for (let i = 1; i <= quantity; i++) {
    const seat = String(i);
    const barcode = `SIM-${orderId}-${seat}${round > 0 ? `-R${round}` : ''}`;
    const doc = await PDFDocument.create();
    const page = doc.addPage([300, 200]);
    page.drawText('SANDBOX TICKET: not valid for entry', { x: 20, y: 150, size: 12 });
    page.drawText(`order ${orderId}, seat ${seat}`, { x: 20, y: 110, size: 12 });
    page.drawText(barcode, { x: 20, y: 70, size: 12 });
    const bytes = await doc.save({ useObjectStreams: false });
    tickets.push({ eticket: Buffer.from(bytes).toString('base64'), seat, barcode });
  }
  return tickets;
}
