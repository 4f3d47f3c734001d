import { createHmac, timingSafeEqual } from 'node:crypto';

/** The headers every delivery carries; docs/notifications.md specifies them for receivers. */
export const SIGNATURE_HEADER = 'x-ats-signature';
export const TIMESTAMP_HEADER = 'x-ats-timestamp';
export const DELIVERY_HEADER = 'x-ats-delivery';
export const EVENT_HEADER = 'x-ats-event';

/**
 * `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`. The timestamp (Unix seconds, also
 * sent in its own header) is inside the signed text, so a receiver that refuses old timestamps
 * cannot be fed a recorded delivery again.
 */
export function signBody(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** An approval link's signature covers the row it names: which call, and until when. */
export function signLink(secret: string, linkId: string, callId: string, expiresAt: Date): string {
  return createHmac('sha256', secret)
    .update(`approval-link:${linkId}:${callId}:${expiresAt.getTime()}`)
    .digest('base64url');
}

export function sameSignature(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
