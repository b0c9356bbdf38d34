import { parentPort } from 'node:worker_threads';
import { FileRefused } from './file-refused.ts';
import { inspectPdf, inspectProof } from './inspect-file.ts';

/** One inspection asked of the thread (src/files/inspect-pool.ts). */
export interface InspectRequest {
  id: number;
  kind: 'pdf' | 'proof';
  bytes: Uint8Array;
}

export type InspectReply =
  | { id: number; facts: Awaited<ReturnType<typeof inspectPdf>> }
  | { id: number; refused: { reason: FileRefused['reason']; message: string } }
  | { id: number; error: string };

// Parsing a 10 MiB document takes the CPU for a second: here, off the HTTP process's event loop.
parentPort!.on('message', async (req: InspectRequest) => {
  let reply: InspectReply;
  try {
    reply = { id: req.id, facts: await (req.kind === 'pdf' ? inspectPdf : inspectProof)(req.bytes) };
  } catch (err) {
    reply =
      err instanceof FileRefused
        ? { id: req.id, refused: { reason: err.reason, message: err.message } }
        : { id: req.id, error: String((err as Error)?.message ?? err) };
  }
  parentPort!.postMessage(reply);
});
