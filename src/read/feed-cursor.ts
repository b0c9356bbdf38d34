import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidParams } from '@fulfil/contract';
import type { SecretBox } from '../auth/secret-box.ts';

const VERSION = 3;
const TAG_BYTES = 16;
/** Version, tag, encrypted position. */
const CURSOR_BYTES = 1 + TAG_BYTES + 8;

const NOT_OURS = 'after: not a cursor this feed gave your brokerage (pass next_cursor back unchanged)';
const RETIRED =
  'after: a cursor of the earlier form, which the feed no longer takes; read the feed again without after and skip the event ids you already have';

/**
 * The cursors of GET /v9/events: a feed position for one brokerage, sealed under keys derived
 * from FULFIL_SECRET_KEY, which every process of a deployment shares.
 *
 * - Only the service makes them: a tag (HMAC-SHA256 over the brokerage and the position) that
 *   the feed checks, so a client cannot name a position of its choosing, such as one past the
 *   feed's end, which would skip the events that later take it, nor use another brokerage's.
 * - They tell nothing: feed positions are shared by all brokerages, so the gap between two of
 *   one's own would count everyone else's events in between; the position is encrypted.
 *
 * The tag is the synthetic IV of AES-256-CTR (the SIV construction): the same place gives the
 * same cursor, so a page past the end hands back exactly the cursor it was given.
 */
export class FeedCursors {
  private derived: { tag: Buffer; seal: Buffer } | undefined;

  private constructor(private readonly deriveKeys: () => { tag: Buffer; seal: Buffer }) {}

  /** The keys are derived at the first cursor, not here: building the app (as the OpenAPI document does) touches no secret. */
  static from(box: Pick<SecretBox, 'derive'>): FeedCursors {
    return new FeedCursors(() => ({ tag: box.derive('feed cursor tag'), seal: box.derive('feed cursor encryption') }));
  }

  private get keys(): { tag: Buffer; seal: Buffer } {
    return (this.derived ??= this.deriveKeys());
  }

  issue(brokerageId: number, position: number): string {
    const plain = Buffer.alloc(8);
    plain.writeBigUInt64BE(BigInt(position));
    const tag = this.tag(brokerageId, plain);
    return Buffer.concat([Buffer.of(VERSION), tag, this.ctr(tag, plain)]).toString('base64url');
  }

  /** The position a cursor names; 400 naming `after` when the feed did not give it to this brokerage. */
  open(brokerageId: number, cursor: string): number {
    const body = Buffer.from(cursor, 'base64url');
    // Canonical only: base64 leaves bits of the last character unused, and a cursor altered there is not one the feed gave.
    if (body.length !== CURSOR_BYTES || body.readUInt8(0) !== VERSION || body.toString('base64url') !== cursor) {
      throw new InvalidParams(body.toString('latin1').startsWith('fe1:') ? RETIRED : NOT_OURS, 'after');
    }
    const tag = body.subarray(1, 1 + TAG_BYTES);
    const plain = this.ctr(tag, body.subarray(1 + TAG_BYTES));
    const position = Number(plain.readBigUInt64BE());
    if (!timingSafeEqual(tag, this.tag(brokerageId, plain)) || !Number.isSafeInteger(position)) {
      throw new InvalidParams(NOT_OURS, 'after');
    }
    return position;
  }

  private tag(brokerageId: number, plain: Buffer): Buffer {
    const brokerage = Buffer.alloc(8);
    brokerage.writeBigUInt64BE(BigInt(brokerageId));
    return createHmac('sha256', this.keys.tag)
      .update(Buffer.concat([Buffer.of(VERSION), brokerage, plain]))
      .digest()
      .subarray(0, TAG_BYTES);
  }

  /** AES-256-CTR from the tag: encrypts and decrypts alike. */
  private ctr(tag: Buffer, data: Buffer): Buffer {
    const cipher = createCipheriv('aes-256-ctr', this.keys.seal, tag);
    return Buffer.concat([cipher.update(data), cipher.final()]);
  }
}
