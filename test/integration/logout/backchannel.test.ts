/**
 * Back-channel logout delivery (OpenID Connect Back-Channel Logout 1.0) against a real relying
 * party: an HTTP server on 127.0.0.1 that receives each POST and validates its logout token as
 * §2.6 tells a relying party to, with jose and nothing of ours but the service's public keys. Its
 * endpoints answer 200, 204, 500, a redirect, late, or fail twice and then take it; one client's
 * endpoint is a port nobody listens on.
 *
 * Through both queues: the in-process one the local runtime uses (`LocalLogoutQueue`, its backoff
 * run by a scheduler the tests drive, so no test waits for one), and the AWS worker's handler
 * (functions/backchannel-logout.ts) called with an SQS event built here, as Lambda's event source
 * would hand it, messages written by the notifier's own encoder.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { createHandler } from '../../../functions/backchannel-logout';
import { logoutMessageBody } from '../../../lib/adapters/sqs/logout-messages';
import { initialKeySet, loadSigningKeys, publicKeySet, type SigningKeys, type StoredKeySet } from '../../../lib/keys/signing-keys';
import {
  BACKCHANNEL_MAX_ATTEMPTS,
  deliverLogout,
  LocalLogoutQueue,
  LogoutDeliveryError,
  type BackchannelDeps,
  type Scheduler,
} from '../../../lib/logout/backchannel';
import type { LogoutNotice } from '../../../lib/logout/ports';
import { buildServiceConfig, parseStageConfig, type ServiceConfig } from '../../../lib/platform/config';
import { BACKCHANNEL_LOG_EVENTS } from '../../../lib/platform/log-events';
import { logger } from '../../../lib/platform/log';
import { listen, readBody, type Listening } from '../../../local/http-server';
import { lambdaContext } from '../../support/api-event';
import { FakeClock } from '../../support/fake-clock';
import { localStageConfig, logEntries } from '../../support/harness';
import { capturedLogs, rememberSecret } from '../../support/log-capture';

const ISSUER = 'http://127.0.0.1:3000';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** What the relying party saw of one POST, and what it made of the token (§2.6). */
interface Received {
  readonly client: string;
  readonly behaviour: string;
  readonly method: string | undefined;
  readonly contentType: string | undefined;
  readonly fields: string[];
  readonly token: string | null;
  readonly validated: JWTPayload | undefined;
  readonly refused: string | undefined;
}

const clock = new FakeClock();
let stored: StoredKeySet;
let keys: SigningKeys;
let rp: Listening;
let unreachable: string;
let config: ServiceConfig;
const received: Received[] = [];
const seenJtis = new Set<string>();
const slowResponses = new Set<ServerResponse>();

/**
 * §2.6, the relying party's validation, in its order: the signature by the OP's published keys,
 * iss, aud (its own client id), iat and exp as for ID tokens, the explicit type, the events
 * member, sub and/or sid, no nonce, and a jti not seen before (the optional replay check).
 */
async function validate(token: string, clientId: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, createLocalJWKSet(publicKeySet(stored)), {
    issuer: ISSUER,
    audience: clientId,
    typ: 'logout+jwt',
    algorithms: ['RS256', 'ES256'],
    requiredClaims: ['iat', 'exp', 'jti'],
    currentDate: new Date(clock.now()),
  });
  const events = payload.events as Record<string, unknown> | undefined;
  if (typeof events?.[EVENT] !== 'object' || events[EVENT] === null) throw new Error('events has no back-channel logout member');
  if (payload.sub === undefined && payload.sid === undefined) throw new Error('neither sub nor sid');
  if ('nonce' in payload) throw new Error('a nonce');
  if (seenJtis.has(String(payload.jti))) throw new Error('a replayed jti');
  seenJtis.add(String(payload.jti));
  return payload;
}

/** `/<behaviour>/<client id>`: the relying party's back-channel logout endpoints. */
async function relyingParty(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const [, behaviour = '', client = ''] = (request.url ?? '').split('/');
  const body = new URLSearchParams((await readBody(request, 16_384))?.toString('utf8') ?? '');
  const token = body.get('logout_token');
  rememberSecret(token);
  let validated: JWTPayload | undefined;
  let refused: string | undefined;
  try {
    validated = await validate(token ?? '', client);
  } catch (error) {
    refused = (error as Error).message;
  }
  received.push({
    client,
    behaviour,
    method: request.method,
    contentType: request.headers['content-type'],
    fields: [...body.keys()],
    token,
    validated,
    refused,
  });
  const earlier = received.filter((entry) => entry.client === client).length;
  if (refused !== undefined) {
    // §2.8: a logout token that does not validate is answered 400.
    response.writeHead(400, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end('{"error":"invalid_request"}');
  } else if (behaviour === 'ok' || (behaviour === 'flaky' && earlier > 2)) {
    response.writeHead(200, { 'Cache-Control': 'no-store' }).end();
  } else if (behaviour === 'no-content') {
    response.writeHead(204).end();
  } else if (behaviour === 'redirect') {
    response.writeHead(302, { Location: `/ok/${client}` }).end();
  } else if (behaviour === 'slow') {
    slowResponses.add(response);
    setTimeout(() => response.writeHead(200).end(), 2000).unref();
  } else {
    response.writeHead(500, { 'Content-Type': 'text/plain' }).end('down');
  }
}

beforeAll(async () => {
  stored = await initialKeySet(new Date(clock.now()));
  keys = await loadSigningKeys(stored);
  rp = await listen(
    createServer((request, response) => void relyingParty(request, response)),
    '127.0.0.1',
    0,
  );
  // A port that was free a moment ago and that nobody listens on.
  const closed = await listen(createServer(), '127.0.0.1', 0);
  unreachable = closed.url;
  await closed.stop();

  const stage = localStageConfig();
  const web = stage.clients.find((client) => client.id === 'local-web');
  if (web === undefined) throw new Error('no local-web');
  const rpClient = (id: string, uri: string, extra: object = {}) => ({ ...web, id, backchannelLogoutUri: uri, ...extra });
  config = buildServiceConfig(
    parseStageConfig({
      ...stage,
      clients: [
        ...stage.clients,
        rpClient('rp-ok', `${rp.url}/ok/rp-ok`, { backchannelLogoutSessionRequired: true }),
        rpClient('rp-es256', `${rp.url}/ok/rp-es256`, { idTokenSignedResponseAlg: 'ES256' }),
        rpClient('rp-no-content', `${rp.url}/no-content/rp-no-content`),
        rpClient('rp-fail', `${rp.url}/fail/rp-fail`),
        rpClient('rp-flaky', `${rp.url}/flaky/rp-flaky`),
        rpClient('rp-redirect', `${rp.url}/redirect/rp-redirect`),
        rpClient('rp-slow', `${rp.url}/slow/rp-slow`),
        rpClient('rp-unreachable', `${unreachable}/ok/rp-unreachable`),
      ],
    }),
  );
});

afterAll(async () => {
  for (const response of slowResponses) response.destroy();
  await rp.stop();
});

beforeEach(() => {
  received.length = 0;
});

const deps = (overrides: Partial<BackchannelDeps> = {}): BackchannelDeps => ({
  config,
  signingKeys: () => Promise.resolve(keys),
  clock,
  log: logger,
  ...overrides,
});

let sessions = 0;
const notice = (clientId: string): LogoutNotice => {
  sessions += 1;
  return { issuer: ISSUER, environmentId: 'local', clientId, subject: `subject-${sessions}`, sid: `sid-${sessions}-0123456789abcdef` };
};

/** A scheduler that runs each task on the next turn of the event loop and records the delay it was asked for. */
function immediateScheduler(): { scheduler: Scheduler; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    scheduler: (delayMs, run) => {
      delays.push(delayMs);
      setImmediate(run);
    },
  };
}

/** The structured lines of this test's logs with `message` (the file's logs are captured, test/support/log-capture.ts). */
const logged = (message: string, from: number) => logEntries(capturedLogs().slice(from), message);

describe('LocalLogoutQueue: delivery to a relying party that validates per §2.6', () => {
  it('POSTs logout_token form-encoded (§2.5), a token the relying party validates (§2.6) and accepts with 200: delivered once, logged without the token', async () => {
    // Arrange
    const held: Array<() => void> = [];
    const queue = new LocalLogoutQueue(deps(), { scheduler: (_delay, run) => held.push(run) });
    const sent = notice('rp-ok');
    const logsFrom = capturedLogs().length;

    // Act
    await queue.notify([sent]);
    const beforeDelivery = received.length;
    for (const run of held.splice(0)) run();
    await queue.settled();

    // Assert: notify returned before anything was posted (off the caller's path).
    expect(beforeDelivery).toBe(0);
    expect(received).toEqual([
      {
        client: 'rp-ok',
        behaviour: 'ok',
        method: 'POST',
        contentType: 'application/x-www-form-urlencoded',
        fields: ['logout_token'],
        token: expect.any(String),
        validated: {
          iss: ISSUER,
          aud: 'rp-ok',
          iat: Math.floor(clock.now() / 1000),
          exp: Math.floor(clock.now() / 1000) + 120,
          jti: expect.any(String),
          events: { [EVENT]: {} },
          sub: sent.subject,
          sid: sent.sid,
        },
        refused: undefined,
      },
    ]);
    expect(queue.deadLetters).toEqual([]);
    expect(logged(BACKCHANNEL_LOG_EVENTS.delivered, logsFrom)).toEqual([
      expect.objectContaining({ environment: 'local', client: 'rp-ok', status: 200, attempt: 1 }),
    ]);
  });

  it('signs with the client’s ID token algorithm: an ES256 client’s token validates as well', async () => {
    const { scheduler } = immediateScheduler();
    const queue = new LocalLogoutQueue(deps(), { scheduler });

    await queue.notify([notice('rp-es256')]);
    await queue.settled();

    expect(received.map((entry) => ({ client: entry.client, refused: entry.refused }))).toEqual([
      { client: 'rp-es256', refused: undefined },
    ]);
  });

  it('takes 204 as delivered too (§2.8: some frameworks answer 204 No Content)', async () => {
    const { scheduler, delays } = immediateScheduler();
    const queue = new LocalLogoutQueue(deps(), { scheduler });

    await queue.notify([notice('rp-no-content')]);
    await queue.settled();

    expect({ posts: received.length, delays, dead: queue.deadLetters }).toEqual({ posts: 1, delays: [0], dead: [] });
  });

  it(`retries a failing endpoint (500) with a backoff, each attempt a new token, and dead-letters it after the last of ${BACKCHANNEL_MAX_ATTEMPTS} tries`, async () => {
    // Arrange
    const { scheduler, delays } = immediateScheduler();
    const queue = new LocalLogoutQueue(deps(), { scheduler });
    const sent = notice('rp-fail');
    const logsFrom = capturedLogs().length;

    // Act
    await queue.notify([sent]);
    await queue.settled();

    // Assert
    expect(received).toHaveLength(BACKCHANNEL_MAX_ATTEMPTS);
    expect(received.map((entry) => entry.refused)).toEqual(Array(BACKCHANNEL_MAX_ATTEMPTS).fill(undefined));
    expect(new Set(received.map((entry) => entry.validated?.jti)).size).toBe(BACKCHANNEL_MAX_ATTEMPTS);
    expect(delays).toEqual([0, 1000, 2000, 4000, 8000]);
    expect(queue.deadLetters).toEqual([
      { notice: sent, attempts: BACKCHANNEL_MAX_ATTEMPTS, reason: 'status', status: 500, at: clock.now() },
    ]);
    expect(logged(BACKCHANNEL_LOG_EVENTS.failed, logsFrom).map((entry) => [entry.attempt, entry.reason, entry.status])).toEqual(
      [1, 2, 3, 4, 5].map((attempt) => [attempt, 'status', 500]),
    );
    expect(logged(BACKCHANNEL_LOG_EVENTS.deadLettered, logsFrom)).toEqual([
      expect.objectContaining({ environment: 'local', client: 'rp-fail', attempts: BACKCHANNEL_MAX_ATTEMPTS }),
    ]);
  });

  it('delivers on a later attempt to an endpoint that failed the first two: no dead letter', async () => {
    const { scheduler } = immediateScheduler();
    const queue = new LocalLogoutQueue(deps(), { scheduler });
    const logsFrom = capturedLogs().length;

    await queue.notify([notice('rp-flaky')]);
    await queue.settled();

    expect(received).toHaveLength(3);
    expect(queue.deadLetters).toEqual([]);
    expect(logged(BACKCHANNEL_LOG_EVENTS.delivered, logsFrom)).toEqual([expect.objectContaining({ client: 'rp-flaky', attempt: 3 })]);
  });

  it('gives up on a slow endpoint at the timeout (injected here: 200 ms) and counts it a failure to retry', async () => {
    // Arrange
    const { scheduler } = immediateScheduler();
    const queue = new LocalLogoutQueue(deps({ timeoutMs: 200 }), { scheduler, maxAttempts: 1 });
    const started = Date.now();

    // Act
    await queue.notify([notice('rp-slow')]);
    await queue.settled();

    // Assert: well before the relying party's 2 s answer.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(queue.deadLetters.map((letter) => ({ reason: letter.reason, attempts: letter.attempts }))).toEqual([
      { reason: 'timeout', attempts: 1 },
    ]);
  });

  it('does not follow a redirect: a 302 is a failure, and the token goes nowhere but the registered URI', async () => {
    const { scheduler } = immediateScheduler();
    const queue = new LocalLogoutQueue(deps(), { scheduler, maxAttempts: 1 });

    await queue.notify([notice('rp-redirect')]);
    await queue.settled();

    expect(received.map((entry) => entry.behaviour)).toEqual(['redirect']);
    expect(queue.deadLetters.map((letter) => ({ reason: letter.reason, status: letter.status }))).toEqual([
      { reason: 'status', status: 302 },
    ]);
  });

  it('counts an endpoint nobody listens on a network failure', async () => {
    await expect(deliverLogout(deps(), notice('rp-unreachable'))).rejects.toEqual(new LogoutDeliveryError('network'));
  });

  it('skips, without a request or a retry, a client that has no back-channel logout URI any more or no longer exists', async () => {
    // Arrange
    const { scheduler, delays } = immediateScheduler();
    const queue = new LocalLogoutQueue(deps(), { scheduler });
    const logsFrom = capturedLogs().length;

    // Act
    await queue.notify([notice('local-web'), notice('removed-client')]);
    await queue.settled();

    // Assert
    expect({ posts: received.length, delays, dead: queue.deadLetters }).toEqual({ posts: 0, delays: [0, 0], dead: [] });
    expect(logged(BACKCHANNEL_LOG_EVENTS.skipped, logsFrom).map((entry) => [entry.client, entry.reason])).toEqual([
      ['local-web', 'no_uri'],
      ['removed-client', 'unknown_client'],
    ]);
  });

  it('retries while the signing keys cannot be read, then delivers (a key set not ready yet is not a dead letter at once)', async () => {
    let reads = 0;
    const { scheduler } = immediateScheduler();
    const signingKeys = () => (++reads === 1 ? Promise.reject(new Error('Secrets Manager unavailable')) : Promise.resolve(keys));
    const queue = new LocalLogoutQueue(deps({ signingKeys }), { scheduler });

    await queue.notify([notice('rp-ok')]);
    await queue.settled();

    expect({ reads, posts: received.length, dead: queue.deadLetters }).toEqual({ reads: 2, posts: 1, dead: [] });
  });
});

describe('the backchannel-logout function (SQS event source, ReportBatchItemFailures)', () => {
  const record = (messageId: string, body: string, receiveCount: number): SQSRecord => ({
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(clock.now()),
      SenderId: 'AROAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(clock.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:Identity-dev-logout',
    awsRegion: 'us-east-1',
  });
  const handler = () => createHandler(() => deps());

  it('reports exactly the messages to try again: a failed delivery and a body that is not a notice; a delivered one is not', async () => {
    // Arrange
    const logsFrom = capturedLogs().length;
    const event: SQSEvent = {
      Records: [
        record('delivered', logoutMessageBody(notice('rp-ok')), 1),
        record('failed', logoutMessageBody(notice('rp-fail')), 2),
        record('malformed', '{"clientId":"rp-ok"}', 1),
        record('no-content', logoutMessageBody(notice('rp-no-content')), 1),
      ],
    };

    // Act
    const result = await handler()(event, lambdaContext());

    // Assert
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'failed' }, { itemIdentifier: 'malformed' }] });
    expect(received.map((entry) => [entry.client, entry.refused]).sort()).toEqual([
      ['rp-fail', undefined],
      ['rp-no-content', undefined],
      ['rp-ok', undefined],
    ]);
    expect(logged(BACKCHANNEL_LOG_EVENTS.failed, logsFrom).map((entry) => [entry.reason, entry.attempt])).toEqual(
      expect.arrayContaining([
        ['status', 2],
        ['malformed', 1],
      ]),
    );
    expect(logged(BACKCHANNEL_LOG_EVENTS.deadLettered, logsFrom)).toEqual([]);
  });

  it(`logs the dead letter when the ${BACKCHANNEL_MAX_ATTEMPTS}th receive fails (SQS then moves it to the dead-letter queue), and answers an empty list when all went through`, async () => {
    const logsFrom = capturedLogs().length;

    const last = await handler()(
      { Records: [record('last', logoutMessageBody(notice('rp-fail')), BACKCHANNEL_MAX_ATTEMPTS)] },
      lambdaContext(),
    );
    const clean = await handler()({ Records: [record('fine', logoutMessageBody(notice('rp-ok')), 1)] }, lambdaContext());

    expect({ last, clean }).toEqual({ last: { batchItemFailures: [{ itemIdentifier: 'last' }] }, clean: { batchItemFailures: [] } });
    expect(logged(BACKCHANNEL_LOG_EVENTS.deadLettered, logsFrom)).toEqual([
      expect.objectContaining({ client: 'rp-fail', attempts: BACKCHANNEL_MAX_ATTEMPTS }),
    ]);
  });
});
