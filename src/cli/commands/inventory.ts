/** The `fulfil inventory …` commands, registered together. */
export { inventoryExport } from './inventory-export.ts';
export { inventoryImport } from './inventory-import.ts';
