/**
 * The fault suite's other operation: the code exchange (POST /account/token) while DynamoDB or
 * Secrets Manager refuses connections, never answers, or answers late within its client's timeout.
 * test/faults/dependency-faults.test.ts drives otp/send through the same faults; this file shows
 * that the token endpoint, too, answers the documented 503 `temporarily_unavailable` with
 * `Retry-After: 1` within its client's budget (./scenario.ts `timeBoundMs`: far below the
 * function's timeout, which a timeout that is not enforced runs into), and that the failed
 * exchange costs the user nothing: the code they hold still exchanges afterwards.
 *
 * Real SDK clients against real sockets; the cases run concurrently.
 */
import { DYNAMODB_CLIENT_SETTINGS, SECRETS_MANAGER_CLIENT_SETTINGS, type ClientLimits } from '../../lib/platform/aws';
import { closedPort, startBlackHole, startWireProxy } from '../support/fault-servers';
import { requiredEnv, type TestService, type TestServiceOptions } from '../support/harness';
import { rememberSecret } from '../support/log-capture';
import { exchange, recipientFor, sendCode, shared, startStack, timeBoundMs, timed, type Stack } from './scenario';

type Mode = 'refuses connections' | 'never answers' | 'answers within the timeout';
const MODES: readonly Mode[] = ['refuses connections', 'never answers', 'answers within the timeout'];

interface Dependency {
  readonly name: string;
  readonly settings: ClientLimits;
  /** Calls a successful exchange makes to it, one after another (local-web: the attempt, the guess, the refresh token family; the HMAC secret and the signing keys). */
  readonly callsPerExchange: number;
  at(stack: Stack, endpoint: string): TestServiceOptions;
  /** The real dependency of `stack`, as a URL a proxy can forward to. */
  target(stack: Stack): string;
}

const DEPENDENCIES: readonly Dependency[] = [
  {
    name: 'DynamoDB',
    settings: DYNAMODB_CLIENT_SETTINGS,
    callsPerExchange: 3,
    at: (_, endpoint) => ({ dynamodbEndpoint: endpoint }),
    target: () => requiredEnv('TEST_DYNAMODB_ENDPOINT'),
  },
  {
    name: 'Secrets Manager',
    settings: SECRETS_MANAGER_CLIENT_SETTINGS,
    callsPerExchange: 2,
    at: (stack, endpoint) => ({ secrets: stack.secretsAt(endpoint) }),
    target: (stack) => stack.secretsManager.url,
  },
];

async function brokenContainer(stack: Stack, dependency: Dependency, mode: Mode): Promise<{ service: TestService; stop(): Promise<void> }> {
  let endpoint: string;
  let stop = () => Promise.resolve();
  switch (mode) {
    case 'refuses connections':
      endpoint = await closedPort();
      break;
    case 'never answers': {
      const hole = await startBlackHole();
      endpoint = hole.url;
      stop = () => hole.stop();
      break;
    }
    case 'answers within the timeout': {
      const proxy = await startWireProxy(dependency.target(stack), {
        delayMs: Math.round(dependency.settings.requestHandler.requestTimeout * 0.4),
      });
      endpoint = proxy.url;
      stop = () => proxy.stop();
      break;
    }
  }
  return { service: await stack.container(dependency.at(stack, endpoint)), stop };
}

const stack = shared(startStack);
afterAll(async () => (await stack()).stop());

const CASES = DEPENDENCIES.flatMap((dependency) => MODES.map((mode) => ({ dependency, mode, name: dependency.name })));

describe('account/token while one dependency is broken', () => {
  it.concurrent.each(CASES)('$name $mode', async ({ dependency, mode }) => {
    const { healthy } = await stack();
    const user = recipientFor('email');
    const held = await sendCode(healthy, 'email', user);
    const broken = await brokenContainer(await stack(), dependency, mode);
    try {
      const { result: response, elapsedMs } = await timed(() => exchange(broken.service, user, held));
      const fails = mode !== 'answers within the timeout';
      expect(elapsedMs).toBeLessThan(timeBoundMs(fails ? 1 : dependency.callsPerExchange, dependency.settings));
      if (!fails) {
        expect(response.status).toBe(200);
        rememberSecret(response.body.access_token);
        rememberSecret(response.body.refresh_token);
        // Spent: single use holds through a slow dependency too.
        expect((await exchange(healthy, user, held)).status).toBe(400);
        return;
      }
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
      expect(response.headers.get('retry-after')).toBe('1');
      // The failed exchange spent nothing: the code the user holds still works.
      const exchanged = await exchange(healthy, user, held);
      expect(exchanged.status).toBe(200);
      rememberSecret(exchanged.body.access_token);
      rememberSecret(exchanged.body.refresh_token);
    } finally {
      await broken.stop();
    }
  });
});
