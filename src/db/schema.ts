export * from './schema/tenancy.ts';
export * from './schema/contact.ts';
export * from './schema/orders.ts';
export * from './schema/commands.ts';
export * from './schema/inventory.ts';
export * from './schema/webhooks.ts';
export * from './schema/feed.ts';
export * from './schema/files.ts';
