import type { CliCommand } from '../command.ts';
import { call } from './call.ts';
import { credentialsCreate, credentialsList, credentialsRevoke } from './credentials.ts';
import { inventoryExport, inventoryImport } from './inventory.ts';
import { jobsList, jobsRetry, jobsShow } from './jobs.ts';
import { migrate } from './migrate.ts';
import { seed } from './seed.ts';
import { shipmentsHistory } from './shipments.ts';
import { start } from './start.ts';

/** Every `fulfil` command; `fulfil --help` lists them in this order. */
export const COMMANDS: readonly CliCommand[] = [start, migrate, seed, credentialsCreate, credentialsList, credentialsRevoke, call, inventoryImport, inventoryExport, shipmentsHistory, jobsList, jobsShow, jobsRetry];
