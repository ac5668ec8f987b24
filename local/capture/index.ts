/**
 * A local stand-in for the two AWS APIs the delivery adapters call for phone channels, so that the
 * production code runs unchanged against it with only `endpoint` changed:
 *
 * - Amazon SNS `Publish` to a phone number (AWS Query protocol): `sns-query.ts`;
 * - AWS End User Messaging SMS and voice v2 `SendVoiceMessage` (AWS JSON 1.0 protocol):
 *   `sms-voice-json.ts`.
 *
 * Anything else either protocol could carry is refused with that protocol's own error, so a wrong
 * call in an adapter fails loudly here instead of passing locally and failing in AWS.
 * `server.ts` routes requests to the protocols and keeps what they captured; `ssml-text.ts` turns
 * a call's SSML into the words the outbox shows; `protocol.ts` is what the server and the
 * protocols agree on.
 *
 * This module is the folder's public face: the local runtime and the tests import the capture
 * server from here, never from the modules behind it, so that a change in how the folder is split
 * touches no importer.
 */
export { startCaptureServer, type CaptureServer, type CaptureServerOptions } from './server';
export type { CapturedMessage } from './protocol';
