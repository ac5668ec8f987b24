/**
 * What an attacker guessing codes meets, over HTTP: "a code dies after 3 wrong tries" holds
 * exactly under any burst, and a patient attacker who paces guesses under the per-minute limit
 * meets the cap on consecutive failures (NIST SP 800-63B §5.2.2).
 */
import { capturedLogs, rememberSecret } from '../support/log-capture';
import {
  exchangeBody,
  logEntries,
  SEND_PATH,
  sendBody,
  startTestService,
  TOKEN_PATH,
  uniqueEmail,
  withLimits,
  type TestService,
} from '../support/harness';

const wrong = (code: string, offset = 1) => String((Number(code) + offset) % 1_000_000).padStart(6, '0');

/** Refusals the service compared against the code (each spent one of its tries), from its logs. */
function comparedRefusals(since: number): number {
  return logEntries(capturedLogs().slice(since), 'grant refused').filter(
    (entry) => entry.reason === 'wrong_code' || entry.reason === 'wrong_code_last_try',
  ).length;
}

describe('no code is compared more than 3 times, under any concurrency', () => {
  let service: TestService;
  beforeAll(async () => {
    // The per-user limit raised, so that only the code's own tries stand in the way.
    // A 50-request burst: DynamoDB Local on a loaded machine may answer after the production 1 s.
    service = await startTestService({ config: withLimits({ token: { maxAttempts: 50 } }), dynamodbRequestTimeoutMs: 10_000 });
  });
  afterAll(async () => service.stop());

  async function sendCode(user: string): Promise<string> {
    expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
    return service.latestCode(user);
  }

  it('of 50 concurrent wrong guesses, at most 3 are compared, and the right code then fails (regression: 5 compared, then the right code accepted)', async () => {
    const user = uniqueEmail('burst');
    const code = await sendCode(user);
    const logsBefore = capturedLogs().length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => service.post(TOKEN_PATH, exchangeBody(user, wrong(code, index + 1)))),
    );
    expect(responses.every((response) => response.status === 400 && response.body.error === 'invalid_grant')).toBe(true);
    expect(comparedRefusals(logsBefore)).toBe(3);
    service.clock.advanceSeconds(60); // out of the per-user window the burst filled
    expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).body.error).toBe('invalid_grant');
  });

  it('after 2 wrong guesses, a burst that includes the right code compares exactly one more guess: the right code wins only if it is that one', async () => {
    for (let round = 0; round < 5; round += 1) {
      const user = uniqueEmail('last-try');
      const code = await sendCode(user);
      for (const offset of [1, 2]) expect((await service.post(TOKEN_PATH, exchangeBody(user, wrong(code, offset)))).status).toBe(400);
      const logsBefore = capturedLogs().length;
      const bodies = Array.from({ length: 10 }, (_, index) => exchangeBody(user, wrong(code, index + 3)));
      bodies.splice(round, 0, exchangeBody(user, code));
      const responses = await Promise.all(bodies.map((body) => service.post(TOKEN_PATH, body)));
      const granted = responses.filter((response) => response.status === 200).length;
      expect(granted + comparedRefusals(logsBefore)).toBe(1);
    }
  });

  it('refuses a repeated guess without spending a try: the same wrong code five times leaves two tries', async () => {
    const user = uniqueEmail('repeat');
    const code = await sendCode(user);
    for (let index = 0; index < 5; index += 1) expect((await service.post(TOKEN_PATH, exchangeBody(user, wrong(code)))).status).toBe(400);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, wrong(code, 2)))).status).toBe(400);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
  });

  it('logs why each refusal happened, for the operator (never for the client)', async () => {
    const user = uniqueEmail('reasons');
    const code = await sendCode(user);
    const logsBefore = capturedLogs().length;
    await service.post(TOKEN_PATH, exchangeBody(user, wrong(code)));
    await service.post(TOKEN_PATH, exchangeBody(user, wrong(code)));
    await service.post(TOKEN_PATH, exchangeBody(user, 'abcdef'));
    expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
    await service.post(TOKEN_PATH, exchangeBody(user, code));
    service.clock.advanceSeconds(300);
    const expired = uniqueEmail('expired');
    const late = await sendCode(expired);
    service.clock.advanceSeconds(300);
    await service.post(TOKEN_PATH, exchangeBody(expired, late));
    await service.post(TOKEN_PATH, exchangeBody(uniqueEmail('nobody'), '123456'));
    const reasons = logEntries(capturedLogs().slice(logsBefore), 'grant refused').map((entry) => entry.reason);
    expect(reasons).toEqual(['wrong_code', 'repeated', 'malformed', 'repeated', 'expired', 'not_found']);
  });
});

describe('the cap on consecutive failed exchanges per user (NIST SP 800-63B §5.2.2)', () => {
  const CAP = { maxConsecutive: 6, windowSeconds: 3600 };
  let service: TestService;
  beforeAll(async () => {
    // Codes with more tries, so one code can take every guess of the run.
    const limits = withLimits({ failures: CAP, code: { maxTries: 10 } });
    service = await startTestService({
      // A second environment local-web may also use, for the cap's isolation across environments.
      config: (config) => {
        const limited = limits(config);
        return {
          ...limited,
          environments: [...limited.environments, { ...limited.environments[0]!, id: 'second' }],
          clients: limited.clients.map((client) => (client.id === 'local-web' ? { ...client, environments: ['local', 'second'] } : client)),
        };
      },
    });
  });
  afterAll(async () => service.stop());

  /** Guesses spaced 15 s apart: four a minute, under the per-minute limit (5), as a patient attacker paces them. */
  async function pacedGuesses(user: string, code: string, count: number): Promise<number[]> {
    const statuses = [];
    for (let index = 0; index < count; index += 1) {
      statuses.push((await service.post(TOKEN_PATH, exchangeBody(user, wrong(code, index + 1)))).status);
      service.clock.advanceSeconds(15);
    }
    return statuses;
  }

  it('refuses the user once the run reaches the cap, with the right code too, until the run’s window has passed', async () => {
    const user = uniqueEmail('capped');
    await service.post(SEND_PATH, sendBody(user));
    const code = await service.latestCode(user);
    const logsBefore = capturedLogs().length;
    expect(await pacedGuesses(user, code, 6)).toEqual([400, 400, 400, 400, 400, 400]);

    const capped = await service.post(TOKEN_PATH, exchangeBody(user, code));
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String) });
    // The run began 90 s ago (6 guesses, 15 s apart): 3,510 s of its window are left.
    expect(capped.headers.get('retry-after')).toBe('3510');
    expect(logEntries(capturedLogs().slice(logsBefore), 'failure cap reached')).toEqual([
      expect.objectContaining({ failures: 6, environment: 'local' }),
    ]);
    const refusals = logEntries(capturedLogs().slice(logsBefore), 'attempt refused');
    expect(refusals.at(-1)).toMatchObject({ operation: 'token', reason: 'failure_cap' });

    service.clock.advanceSeconds(3510 - 1);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(429);
    service.clock.advanceSeconds(1);
    await service.post(SEND_PATH, sendBody(user));
    expect((await service.post(TOKEN_PATH, exchangeBody(user, await service.latestCode(user)))).status).toBe(200);
  });

  it('does not stop sends: the user still gets codes (they cannot be used until the cap lifts)', async () => {
    const user = uniqueEmail('capped-send');
    await service.post(SEND_PATH, sendBody(user));
    await pacedGuesses(user, await service.latestCode(user), 6);
    expect((await service.post(SEND_PATH, sendBody(user))).status).toBe(200);
  });

  it('counts per user, across clients, and a success ends the run', async () => {
    const user = uniqueEmail('reset');
    await service.post(SEND_PATH, sendBody(user));
    await pacedGuesses(user, await service.latestCode(user), 5);
    await service.post(SEND_PATH, sendBody(user, 'local-opaque'));
    service.dynamodb.reset();
    const success = await service.post(TOKEN_PATH, exchangeBody(user, await service.latestCode(user), 'local-opaque'));
    expect(success.status).toBe(200);
    rememberSecret(success.body.access_token);
    rememberSecret(success.body.refresh_token);
    // The success that ends a run costs its one extra write; a first-try success does not. (The
    // last write is the opaque token with its refresh token family, one transaction.)
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem', 'TransactWriteItems']);
    service.clock.advanceSeconds(60);
    await service.post(SEND_PATH, sendBody(user));
    const code = await service.latestCode(user);
    expect(await pacedGuesses(user, code, 5)).toEqual([400, 400, 400, 400, 400]);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
  });

  it('keeps a wrong guess at 3 DynamoDB requests when it starts a new run over one whose window has passed (regression: 4, a refused write first)', async () => {
    const user = uniqueEmail('stale-run');
    await service.post(SEND_PATH, sendBody(user));
    await pacedGuesses(user, await service.latestCode(user), 2);
    service.clock.advanceSeconds(CAP.windowSeconds + 1);
    await service.post(SEND_PATH, sendBody(user));
    const code = await service.latestCode(user);
    service.dynamodb.reset();
    expect((await service.post(TOKEN_PATH, exchangeBody(user, wrong(code)))).status).toBe(400);
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
    // The new run started at that failure (1), and 4 more stay under the cap (6): the stale run's 2 are not counted.
    await pacedGuesses(user, code, CAP.maxConsecutive - 2);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
  });

  it('keeps a success at its own requests when the run it would end has passed its window (regression: one more write to clear it)', async () => {
    const user = uniqueEmail('stale-success');
    await service.post(SEND_PATH, sendBody(user));
    await pacedGuesses(user, await service.latestCode(user), 2);
    service.clock.advanceSeconds(CAP.windowSeconds + 1);
    await service.post(SEND_PATH, sendBody(user));
    service.dynamodb.reset();
    const success = await service.post(TOKEN_PATH, exchangeBody(user, await service.latestCode(user)));
    expect(success.status).toBe(200);
    rememberSecret(success.body.access_token);
    rememberSecret(success.body.refresh_token);
    // The attempt, the guess, the refresh token family: no write for the run, which counts for nothing.
    expect(service.dynamodb.operations()).toEqual(['UpdateItem', 'UpdateItem', 'PutItem']);
    // It still counts for nothing: the next failures start a new run, and 5 stay under the cap.
    service.clock.advanceSeconds(60);
    await service.post(SEND_PATH, sendBody(user));
    const code = await service.latestCode(user);
    expect(await pacedGuesses(user, code, CAP.maxConsecutive - 1)).toEqual([400, 400, 400, 400, 400]);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, code))).status).toBe(200);
  });

  it('ends a run at its window’s exact edge: a success at since + window - 1 ms clears it (one write more), at since + window the run has lapsed and is left alone', async () => {
    const successAfter = async (elapsedMs: number): Promise<readonly string[]> => {
      const user = uniqueEmail('run-edge');
      await service.post(SEND_PATH, sendBody(user));
      // The run starts with this failure, at the clock's present moment.
      expect((await service.post(TOKEN_PATH, exchangeBody(user, wrong(await service.latestCode(user))))).status).toBe(400);
      service.clock.advance(elapsedMs);
      await service.post(SEND_PATH, sendBody(user));
      const code = await service.latestCode(user);
      service.dynamodb.reset();
      const success = await service.post(TOKEN_PATH, exchangeBody(user, code));
      expect(success.status).toBe(200);
      rememberSecret(success.body.access_token);
      rememberSecret(success.body.refresh_token);
      return service.dynamodb.operations();
    };
    const windowMs = CAP.windowSeconds * 1000;
    // The attempt, the guess, the run's clearing write, the refresh token family.
    expect(await successAfter(windowMs - 1)).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem', 'PutItem']);
    expect(await successAfter(windowMs)).toEqual(['UpdateItem', 'UpdateItem', 'PutItem']);
  });

  it('is per environment and per user: another user is not affected, nor the same user in another environment', async () => {
    const user = uniqueEmail('victim');
    await service.post(SEND_PATH, sendBody(user));
    await pacedGuesses(user, await service.latestCode(user), 6);
    expect((await service.post(TOKEN_PATH, exchangeBody(user, '000000'))).status).toBe(429);
    const other = uniqueEmail('bystander');
    await service.post(SEND_PATH, sendBody(other));
    expect((await service.post(TOKEN_PATH, exchangeBody(other, await service.latestCode(other)))).status).toBe(200);
    expect((await service.post(`${SEND_PATH}?env_id=second`, sendBody(user))).status).toBe(200);
    const inSecond = await service.post(`${TOKEN_PATH}?env_id=second`, exchangeBody(user, await service.latestCode(user)));
    expect(inSecond.status).toBe(200);
    rememberSecret(inSecond.body.access_token);
    rememberSecret(inSecond.body.refresh_token);
  });
});
