import { bigserial, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Contact records are immutable: an update creates a new row (the contract says
// "creates a new phone number / address"), so a tombstoned shipment keeps what it showed.

export const emailAddresses = pgTable('email_addresses', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  address: text('address').notNull(),
  label: text('label'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const phoneNumbers = pgTable('phone_numbers', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  label: text('label'),
  countryCode: text('country_code').notNull(),
  number: text('number').notNull(),
  extension: text('extension'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const addresses = pgTable('addresses', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  label: text('label'),
  name: text('name').notNull(),
  streetAddress: text('street_address').notNull(),
  extendedAddress: text('extended_address'),
  locality: text('locality').notNull(),
  region: text('region').notNull(),
  postalCode: text('postal_code').notNull(),
  countryCode: text('country_code').notNull(),
});
