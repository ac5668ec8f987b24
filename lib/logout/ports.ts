/**
 * Back-channel logout's port (OpenID Connect Back-Channel Logout 1.0): the notices a session's end
 * leaves for the relying parties it logged the user in to, delivered off the request path (an SQS
 * queue and its function on AWS, lib/adapters/sqs/logout-queue.ts; in-process locally).
 */

/** One logout token to deliver: to `clientId`, for the session `sid` of the user `subject` (the client's sub). */
export interface LogoutNotice {
  /** The `iss` of the logout token: the issuer the session's logins used. */
  readonly issuer: string;
  readonly environmentId: string;
  readonly clientId: string;
  /** The client's `sub` for the user (public or pairwise), computed by the caller. */
  readonly subject: string;
  /** The session's `sid`. */
  readonly sid: string;
}

export interface LogoutNotifier {
  /** Queues the notices for delivery off the request path; resolves once queued (never waits for a relying party). */
  notify(notices: readonly LogoutNotice[]): Promise<void>;
}
