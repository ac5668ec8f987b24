/**
 * The X-Ray side of lib/platform/tracing.ts, in a module of its own so that only a bundle built to
 * trace holds it (and with it the Powertools Tracer and the X-Ray SDK): nothing but tracing.ts's
 * guarded `require` may import it.
 *
 * One Powertools Tracer per container (Powertools is the house's Lambda toolkit; the Logger is
 * already one of its packages). Its choices:
 * - `captureHTTPsRequests: false`. Powertools would otherwise patch Node's `http`/`https` and
 *   `fetch` for every outgoing request, and each AWS call, already a subsegment of its own through
 *   `captureAWSv3Client`, would be recorded twice (an `aws` and a `remote` subsegment for one HTTP
 *   request) at twice the cost. The only other outgoing requests are the back-channel logout
 *   notices to relying parties, whose outcome the worker logs.
 * - No handler subsegment (Powertools' `captureLambdaHandler`): Lambda's own function segment
 *   already times the invocation, and that middleware records the handler's response as segment
 *   metadata unless told not to, and our responses carry tokens and codes.
 * What a subsegment records of a call is the X-Ray SDK's allow-list (aws-xray-sdk-core
 * `resources/aws_whitelist.json`): DynamoDB's table name and consumed capacity, SNS's topic ARN,
 * SQS's queue URL, nothing of SES, Secrets Manager or SMS-voice calls. Never a key, an item, a
 * recipient or a message (test/unit/platform/tracing.test.ts sends an SMS and reads the segment).
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { lazy } from './lazy';

export type CaptureClient = <Client>(client: Client) => Client;

const tracer = lazy(() => new Tracer({ captureHTTPsRequests: false }));

/** `client` with its calls recorded as subsegments (unchanged where Powertools finds tracing off: outside Lambda). */
export const captureClient: CaptureClient = (client) => tracer().captureAWSv3Client(client);
