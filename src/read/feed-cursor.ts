import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidParams } from '@fulfil/contract';
import type { SecretBox } from '../auth/secret-box.ts';

const VERSION = 2;
const TAG_BYTES = 16;
/** Version, position, tag. */
const CURSOR_BYTES = 1 + 8 + TAG_BYTES;

const NOT_OURS = 'after: not a cursor this feed gave your brokerage (pass next_cursor back unchanged)';
const RETIRED =
  'after: a cursor of the earlier form, which the feed no longer takes; read the feed again without after and skip the event ids you already have';

/**
 * The cursors of GET /v9/events. A cursor names a feed position for one brokerage, with a tag
 * (HMAC-SHA256 under a key derived from FULFIL_SECRET_KEY, which every process of a deployment
 * shares) over the brokerage and the position: the feed takes back only cursors it gave that
 * brokerage, so a client cannot name a position of its choosing, such as one past the feed's
 * end, which would skip the events that later take it.
 */
export class FeedCursors {
  private derived: Buffer | undefined;

  private constructor(private readonly deriveKey: () => Buffer) {}

  /** The key is derived at the first cursor, not here: building the app (as the OpenAPI document does) touches no secret. */
  static from(box: Pick<SecretBox, 'derive'>): FeedCursors {
    return new FeedCursors(() => box.derive('feed cursor'));
  }

  private get key(): Buffer {
    return (this.derived ??= this.deriveKey());
  }

  issue(brokerageId: number, position: number): string {
    const body = Buffer.alloc(CURSOR_BYTES);
    body.writeUInt8(VERSION, 0);
    body.writeBigUInt64BE(BigInt(position), 1);
    this.tag(brokerageId, position).copy(body, 9);
    return body.toString('base64url');
  }

  /** The position a cursor names; 400 naming `after` when the feed did not give it to this brokerage. */
  open(brokerageId: number, cursor: string): number {
    const body = Buffer.from(cursor, 'base64url');
    // Canonical only: base64 leaves bits of the last character unused, and a cursor altered there is not one the feed gave.
    if (body.length !== CURSOR_BYTES || body.readUInt8(0) !== VERSION || body.toString('base64url') !== cursor) {
      throw new InvalidParams(body.toString('latin1').startsWith('fe1:') ? RETIRED : NOT_OURS, 'after');
    }
    const position = Number(body.readBigUInt64BE(1));
    if (!Number.isSafeInteger(position) || !timingSafeEqual(body.subarray(9), this.tag(brokerageId, position))) {
      throw new InvalidParams(NOT_OURS, 'after');
    }
    return position;
  }

  private tag(brokerageId: number, position: number): Buffer {
    const message = Buffer.alloc(17);
    message.writeUInt8(VERSION, 0);
    message.writeBigUInt64BE(BigInt(brokerageId), 1);
    message.writeBigUInt64BE(BigInt(position), 9);
    return createHmac('sha256', this.key).update(message).digest().subarray(0, TAG_BYTES);
  }
}
