/**
 * The messages between the service's thread and the thread that runs its embedded PGlite
 * (embedded-thread.ts). Only data crosses: drizzle's type parsers are functions, so a query says
 * `rawDates` and the thread applies drizzle's parsers itself (they keep dates as text).
 */

export type Request =
  | { op: 'query'; tx?: number; text: string; params: unknown[]; rowMode?: 'array' | 'object'; rawDates: boolean }
  | { op: 'exec'; tx?: number; text: string }
  | { op: 'begin'; tx: number }
  | { op: 'commit'; tx: number }
  | { op: 'rollback'; tx: number }
  | { op: 'listen'; channel: string }
  | { op: 'unlisten'; channel: string }
  | { op: 'migrate'; folder: string; lockKey: number }
  /** One protocol message of a CLI guest (pglite-socket.ts); its answer streams back as guest-data. */
  | { op: 'guest'; handlerId: number; message: Uint8Array }
  | { op: 'guest-clear'; handlerId: number }
  | { op: 'guest-end'; handlerId: number }
  | { op: 'close' };

export interface Call {
  id: number;
  request: Request;
}

/** An error's name, message and its primitive fields (a Postgres error's code, detail, constraint…). */
export interface WireError {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean>;
}

export type Event =
  | { type: 'ready' }
  | { type: 'open-failed'; error: WireError }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: WireError }
  | { type: 'guest-data'; id: number; data: Uint8Array }
  /** A guest message starts running on PGlite (busy) or has ended (idle): the watchdog's clock. */
  | { type: 'guest-busy'; handlerId: number }
  | { type: 'guest-idle' }
  /** A guest held the session past HOLD_LIMIT_MS between messages: the service side cuts it off. */
  | { type: 'guest-stall'; handlerId: number }
  | { type: 'notify'; channel: string; payload: string };

export interface ThreadOptions {
  dir: string;
}

export function toWireError(err: unknown): WireError {
  const e = err instanceof Error ? err : new Error(String(err));
  const fields: WireError['fields'] = {};
  for (const [k, v] of Object.entries(e)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
  }
  return { name: e.name, message: e.message, fields };
}

export function fromWireError(w: WireError): Error {
  const err = Object.assign(new Error(w.message), w.fields);
  if (w.name !== 'Error') Object.defineProperty(err, 'name', { value: w.name, enumerable: false, configurable: true, writable: true });
  return err;
}
