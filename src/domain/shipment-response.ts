import type { AddressRow, EmailAddressRow, PhoneNumberRow, ShipmentContacts } from '../db/ops/contacts.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';

// Responses are trimmed exactly as the contract shows each one; these build every shape.

export const shipmentUrl = (id: number) => `/shipments/${id}`;

export function emailAddressJson(e: EmailAddressRow) {
  return { id: e.id, url: null, address: e.address, label: e.label, updated_at: e.updatedAt.toISOString() };
}

export function phoneNumberJson(p: PhoneNumberRow) {
  return {
    id: p.id,
    url: `/phone_numbers/${p.id}`,
    label: p.label,
    country_code: p.countryCode,
    number: p.number,
    extension: p.extension,
    updated_at: p.updatedAt.toISOString(),
  };
}

/** The buyer's local-pickup response shows only these four keys of the phone number. */
export function buyerPhoneNumberJson(p: PhoneNumberRow) {
  return { label: p.label, country_code: p.countryCode, number: p.number, extension: p.extension };
}

export function addressJson(a: AddressRow) {
  return {
    id: a.id,
    label: a.label,
    name: a.name,
    street_address: a.streetAddress,
    extended_address: a.extendedAddress,
    locality: a.locality,
    region: a.region,
    postal_code: a.postalCode,
    country_code: a.countryCode,
  };
}

/** XMobile and XSeats shipments carry the recipient the seller transfers to. */
function recipient(s: ShipmentRow, c: ShipmentContacts) {
  return s.type === 'XMobile' || s.type === 'XSeats'
    ? { ship_to_name: s.shipToName, email_address: c.email ? emailAddressJson(c.email) : null }
    : {};
}

/** A shipment inside the accept response: id, url, type; XSeats also state and recipient. */
export function acceptedShipmentJson(s: ShipmentRow, c: ShipmentContacts) {
  return { id: s.id, url: shipmentUrl(s.id), type: s.type, ...(s.type === 'XSeats' ? { state: s.state, ...recipient(s, c) } : {}) };
}

/** Seller mobile transfer / e-ticket update. */
export function mobileTransferJson(s: ShipmentRow, c: ShipmentContacts) {
  return { id: s.id, url: shipmentUrl(s.id), type: s.type, state: s.state, ...recipient(s, c) };
}

export function sellerPickupJson(s: ShipmentRow, c: ShipmentContacts) {
  return {
    id: s.id,
    url: shipmentUrl(s.id),
    type: s.type,
    ship_from_name: s.shipFromName,
    ship_from_address: c.shipFromAddress ? addressJson(c.shipFromAddress) : null,
    ship_from_phone_number: c.shipFromPhone ? phoneNumberJson(c.shipFromPhone) : null,
    pickup_time_range: s.pickupTimeRange,
    pickup_instructions: s.pickupInstructions,
  };
}

export function buyerPickupJson(s: ShipmentRow, c: ShipmentContacts) {
  return {
    id: s.id,
    url: shipmentUrl(s.id),
    type: s.type,
    ship_to_name: s.shipToName,
    phone_number: c.phone ? buyerPhoneNumberJson(c.phone) : null,
    notes: s.notes,
  };
}

export function completedShipmentJson(s: ShipmentRow) {
  return {
    id: s.id,
    url: shipmentUrl(s.id),
    type: s.type,
    state: s.state,
    ...(s.xMobileLink ? { x_mobile_link: s.xMobileLink } : {}),
  };
}

/** A mailed shipment (FedEx, UPS, USPS, ProvidedAirbill): where it goes, how, and its tracking. */
export function mailedShipmentJson(s: ShipmentRow, c: ShipmentContacts) {
  return {
    id: s.id,
    url: shipmentUrl(s.id),
    type: s.type,
    state: s.state,
    service_type: s.serviceType,
    ship_to_name: s.shipToName,
    ship_to_address: c.shipToAddress ? addressJson(c.shipToAddress) : null,
    tracking_number: s.trackingNumber,
    estimated_delivery_at: s.estimatedDeliveryAt ? s.estimatedDeliveryAt.toISOString() : null,
  };
}
