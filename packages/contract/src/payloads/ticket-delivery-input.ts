import { z } from 'zod';
import { acceptedEnum } from './accepted-enum.ts';
import { BESIDE_FIELD_RULES, textOfAtMost } from './validation.ts';

/**
 * The platforms a mobile transfer or a barcode completion may name as `transfer_source` on
 * completion (docs/API.md §Shipments), by code; the aliases below map to their code. Anything
 * else is 400.
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

const CODES = Object.keys(TRANSFER_SOURCES) as [TransferSourceCode, ...TransferSourceCode[]];

/** Longer names accepted for a code, spelled exactly as listed (D-131). */
export const TRANSFER_SOURCE_ALIASES = { ticketmaster: 'TM', seatgeek: 'SG', 'tickets.com': 'TICKETS_COM' } as const;

/**
 * transfer_source on completion: a code of TRANSFER_SOURCES or one of its aliases, answered by
 * the code. The document's enum, docs/API.md's list and the check are this one list.
 */
export const platformSource = acceptedEnum('transfer_source', CODES, TRANSFER_SOURCE_ALIASES).meta({
  description: `The platform: ${CODES.map((c) => `${c} (${TRANSFER_SOURCES[c]})`).join(', ')}; ${Object.entries(TRANSFER_SOURCE_ALIASES)
    .map(([alias, code]) => `${alias} is accepted for ${code}`)
    .join(', ')}; answered as the code.`,
});

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
    ...BESIDE_FIELD_RULES,
  })
  .meta({ oneOf: [{ required: ['barcode'] }, { required: ['primary_ticket_id'] }, { required: ['verification_id'] }] });

export const completionTickets = z.array(completionTicket).min(1).max(100);
export type CompletionTicket = z.output<typeof completionTicket>;
