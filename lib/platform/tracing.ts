/**
 * AWS X-Ray tracing of the service's AWS calls: `traced(client)` is applied to every AWS SDK
 * client the functions build, so each DynamoDB, SES, SNS, SQS, Secrets Manager and SMS-voice call
 * is a subsegment (named after the service, `namespace: aws`, with the operation, the retries and
 * the HTTP status) of the function's own segment, which Lambda records when the function's
 * tracing is `Active` (infra/functions.ts). API Gateway's stage records the request's segment
 * before it (infra/api.ts), so one trace shows gateway → function → each AWS call.
 *
 * Whether a bundle can trace is decided when it is built, not when it runs: the stage setting
 * `deployment.tracing` (infra/stage-config.ts) makes the bundler (infra/bundling.ts) replace
 * `process.env.IDENTITY_TRACING` with `"active"` or `"off"`. With `"off"` the condition below is
 * the constant `false`, esbuild drops the branch and its `require`, and neither the Powertools
 * Tracer nor the X-Ray SDK is in the bundle (test/infra/tracing.test.ts reads the metafiles):
 * a stage that does not trace pays nothing for it, in bytes or load time (docs/performance.md).
 * A `require` in a branch, not an `import`, because esbuild must keep every imported module whose
 * body has side effects (the X-Ray SDK's does), used or not; a dead branch's `require` it never
 * follows. Sources run without a bundler (`npm start`, the tests) read the real variable, which
 * nothing but the tracing tests sets: the local runtime never traces.
 *
 * Even in a bundle that can trace, Powertools turns tracing off outside Lambda (no
 * `AWS_EXECUTION_ENV`), and then `traced` returns the client untouched.
 */
import type * as TracingXray from './tracing-xray';

/** The variable the bundler replaces; its two values. */
export const TRACING_VARIABLE = 'IDENTITY_TRACING';
export const TRACING_ON = 'active';
export const TRACING_OFF = 'off';

const capture: TracingXray.CaptureClient =
  process.env.IDENTITY_TRACING === 'active'
    ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- see the header: only a dead branch's require leaves the X-Ray SDK out of a bundle.
      (require('./tracing-xray') as typeof TracingXray).captureClient
    : (client) => client;

/**
 * `client`, its calls recorded as X-Ray subsegments when this bundle traces and runs on Lambda;
 * otherwise `client` itself, unchanged.
 * @example const dynamodb = traced(new DynamoDBClient(settings));
 */
export function traced<Client extends TraceableClient>(client: Client): Client {
  return capture(client);
}

/**
 * The variables of a function that traces (infra/functions.ts sets them). The X-Ray SDK's default,
 * when a call has no segment to belong to (code run outside an invocation), is to log an error
 * line, not JSON, into the function's logs; nothing of ours calls AWS outside an invocation, and
 * Lambda records the function's segment either way, so such a call is left untraced without a word.
 */
export const TRACING_ENVIRONMENT: Readonly<Record<string, string>> = { AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR' };

/** What an AWS SDK v3 client has that the capture needs: its middleware stack. */
export interface TraceableClient {
  readonly middlewareStack: { add: (...args: never[]) => unknown };
}
