import { addresses, emailAddresses, phoneNumbers } from '../schema.ts';

export type EmailAddressRow = typeof emailAddresses.$inferSelect;
export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;
export type AddressRow = typeof addresses.$inferSelect;

export interface ShipmentContacts {
  email?: EmailAddressRow | undefined;
  shipFromAddress?: AddressRow | undefined;
  shipFromPhone?: PhoneNumberRow | undefined;
  phone?: PhoneNumberRow | undefined;
  /** A mailed shipment's destination. */
  shipToAddress?: AddressRow | undefined;
}
