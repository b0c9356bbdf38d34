import { z } from 'zod';
import { textOfAtMost } from './validation.ts';

/**
 * The platforms a mobile transfer or a barcode completion may name as `transfer_source` on
 * completion (docs/API.md §Shipments), by code; names are matched without regard to case, and
 * the aliases below map to their code. Anything else is 400.
 */
export const TRANSFER_SOURCES = {
  AXS: 'AXS',
  TM: 'Ticketmaster (Account Manager, Ticketmaster app)',
  SG: 'SeatGeek',
  MLB: 'MLB Ballpark',
  PACIOLAN: 'Paciolan',
  TICKETS_COM: 'Tickets.com',
  ETIX: 'Etix',
  EVENTBRITE: 'Eventbrite',
  DICE: 'DICE',
  SEE_TICKETS: 'See Tickets',
  TIXR: 'Tixr',
  VENUE: "the venue's or team's own app or box office",
  OTHER: 'another platform',
} as const;
export type TransferSourceCode = keyof typeof TRANSFER_SOURCES;

const ALIASES: Record<string, TransferSourceCode> = { TICKETMASTER: 'TM', SEATGEEK: 'SG', 'TICKETS.COM': 'TICKETS_COM', BALLPARK: 'MLB' };
const CODES = Object.keys(TRANSFER_SOURCES) as TransferSourceCode[];

function codeOf(value: string): TransferSourceCode | undefined {
  const upper = value
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
  return (CODES as string[]).includes(upper) ? (upper as TransferSourceCode) : ALIASES[upper];
}

/**
 * transfer_source on completion: a platform of TRANSFER_SOURCES, answered by its code. The
 * document lists the codes; any case and the aliases are accepted too (as legacy type names are).
 */
export const platformSource = z.preprocess(
  (v) => (typeof v === 'string' ? (codeOf(v) ?? v) : v),
  z
    .enum(CODES as [TransferSourceCode, ...TransferSourceCode[]], {
      message: `must be one of ${CODES.join(', ')} (any case; ticketmaster and seatgeek are accepted for TM and SG)`,
    })
    .meta({
      description: `The platform: ${CODES.map((c) => `${c} (${TRANSFER_SOURCES[c]})`).join(', ')}; any case; ticketmaster and seatgeek are accepted for TM and SG.`,
    }),
) as unknown as z.ZodType<TransferSourceCode, string>;

const ticketKey = (max: number, description: string) => textOfAtMost(max, z.string().min(1, 'must not be empty')).meta({ description });

/**
 * Barcode completion (Ticket Evolution's `tickets`): per seat, exactly one of its barcode, the
 * primary market's ticket id, or the id of the transfer's verification.
 */
export const completionTicket = z
  .strictObject({
    seat: ticketKey(32, 'the seat'),
    barcode: ticketKey(200, "the ticket's barcode").optional(),
    primary_ticket_id: ticketKey(100, "the primary market's ticket id").optional(),
    verification_id: ticketKey(200, "the transfer's verification id on the platform").optional(),
  })
  .refine((t) => [t.barcode, t.primary_ticket_id, t.verification_id].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of barcode, primary_ticket_id, verification_id',
  })
  .meta({ oneOf: [{ required: ['barcode'] }, { required: ['primary_ticket_id'] }, { required: ['verification_id'] }] });

export const completionTickets = z.array(completionTicket).min(1).max(100);
export type CompletionTicket = z.output<typeof completionTicket>;
