/**
 * `GET /__dev/outbox?user_id=<id>` (local only): every email, SMS and voice message the local
 * stand-ins captured, newest first, optionally for one recipient (normalised like the service
 * does, so `Alice@Example.com` finds mail sent to `alice@example.com`).
 */
import { normalisePhone } from '../lib/phone/phone-validation';
import { normaliseEmail } from '../lib/platform/email-address';
import type { CapturedMessage } from './capture';

export interface OutboxMessage {
  readonly channel: 'email' | 'sms' | 'voice';
  readonly to: string;
  readonly subject?: string;
  readonly text: string;
  readonly sent_at: string;
}

interface SesStoreEmail {
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
  /** Epoch seconds. */
  at: number;
}

/** Reads both stand-ins' stores over HTTP (they may run in another process). */
export async function readOutbox(sesUrl: string, captureUrl: string, userId: string | undefined): Promise<OutboxMessage[]> {
  const [ses, captured] = await Promise.all([
    fetchJson<{ emails: SesStoreEmail[] }>(`${sesUrl}/store`),
    fetchJson<{ messages: CapturedMessage[] }>(`${captureUrl}/messages`),
  ]);
  const emails = ses.emails.flatMap((email, index) =>
    email.destination.to.map((to) => ({
      order: email.at * 1000 + index / 1000,
      message: {
        channel: 'email' as const,
        to,
        subject: email.subject,
        text: email.body.text ?? '',
        sent_at: new Date(email.at * 1000).toISOString(),
      },
    })),
  );
  const calls = captured.messages.map((message) => ({
    order: Date.parse(message.sent_at),
    message: { channel: message.channel, to: message.to, text: message.text, sent_at: message.sent_at },
  }));
  const wanted = userId === undefined ? undefined : (normaliseEmail(userId) ?? normalisePhone(userId) ?? userId.trim());
  return [...emails, ...calls]
    .filter(({ message }) => wanted === undefined || recipientOf(message.to) === wanted)
    .sort((a, b) => b.order - a.order)
    .map(({ message }) => message);
}

/** SES stores the address as written in the request; compare normalised. */
function recipientOf(to: string): string {
  return normaliseEmail(to) ?? normalisePhone(to) ?? to;
}

async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as T;
}
