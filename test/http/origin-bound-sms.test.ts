/**
 * Every SMS ends with the origin-bound line `@<host> #<code>` (https://wicg.github.io/sms-one-time-codes/,
 * lib/messages/origin-bound-code.ts), whoever asks for the code (otp/send or the hosted page) and
 * whatever its text (ours or the client's), naming the passkeys' RP ID: the configured one, else
 * the issuer's host name, without the port. Email and voice do not get it.
 */
import { startTestService, REDIRECT_URI, uniqueEmail, uniquePhone, type TestService } from '../support/harness';
import { LoginSession } from '../support/login-flow';

const SEND = '/idp/v1/otp/send';

const smsSend = (userId: string, extra: Record<string, unknown> = {}) => ({
  auth_type: 'sms',
  client_id: 'local-web',
  redirect_uri: REDIRECT_URI,
  user_id: userId,
  ...extra,
});

/** The outbox's newest message to `user`, split into its lines. */
async function linesOf(service: TestService, user: string): Promise<string[]> {
  const [message] = await service.outbox(user);
  return (message?.text ?? '').split('\n');
}

describe('without a configured RP ID: the issuer’s host name', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.stop());

  it('ends the default SMS with a blank line and @<issuer host> #<code>, no port', async () => {
    // Arrange: the issuer is the request's (no ISSUER set): http://127.0.0.1:PORT here.
    const user = uniquePhone();

    // Act
    const response = await service.post(SEND, smsSend(user));

    // Assert
    expect(response.status).toBe(200);
    const code = await service.latestCode(user);
    const lines = await linesOf(service, user);
    expect(lines.slice(-2)).toEqual(['', `@127.0.0.1 #${code}`]);
    expect(lines[0]).toBe(`Your Identity Dev code is ${code}. It expires in 5 minutes. Don't share it with anyone.`);
  });

  it('names the host the issuer has: http://localhost:PORT gives @localhost', async () => {
    const user = uniquePhone();
    const response = await fetch(`${service.url.replace('127.0.0.1', 'localhost')}${SEND}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(smsSend(user)),
    });
    expect(response.status).toBe(200);
    expect((await linesOf(service, user)).at(-1)).toBe(`@localhost #${await service.latestCode(user)}`);
  });

  it('adds the line to a client’s own message too', async () => {
    const user = uniquePhone();
    expect((await service.post(SEND, smsSend(user, { message: 'Acme: %code%' }))).status).toBe(200);
    const code = await service.latestCode(user);
    expect((await service.outbox(user))[0]?.text).toBe(`Acme: ${code}\n\n@127.0.0.1 #${code}`);
  });

  it('refuses a client message that fits 3 segments alone but not with the line, before any code', async () => {
    // Arrange: 459 GSM-7 units with the code (3 x 153); the line for 127.0.0.1 adds 20.
    const user = uniquePhone();

    // Act
    const response = await service.post(SEND, smsSend(user, { message: `${'a'.repeat(453)}%code%` }));

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
    expect(response.body.error_description).toContain('@127.0.0.1 #<code>: 20 characters');
    expect(await service.outbox(user)).toEqual([]);
  });

  it('ends the hosted login page’s SMS with the same line', async () => {
    const user = uniquePhone();
    const session = new LoginSession(service);
    const sent = await session.post(await session.start(), 'send', { user_id: user });
    expect(sent.status).toBe(200);
    expect((await linesOf(service, user)).slice(-2)).toEqual(['', `@127.0.0.1 #${await service.latestCode(user)}`]);
  });

  it('leaves email and voice as they were: no line', async () => {
    const email = uniqueEmail('origin-bound');
    const phone = uniquePhone();
    expect((await service.post(SEND, { ...smsSend(email), auth_type: 'email' })).status).toBe(200);
    expect((await service.post(SEND, smsSend(phone, { method: 'voice_with_otp' }))).status).toBe(200);
    for (const user of [email, phone]) {
      const [message] = await service.outbox(user);
      expect(message?.channel).toBe(user === email ? 'email' : 'voice');
      expect(message?.text).not.toContain('@127.0.0.1');
      expect(message?.text).not.toMatch(/#\d{6}/);
    }
  });
});

describe('with passkeys.rpId configured: that host, whatever the request’s', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ config: (config) => ({ ...config, passkeys: { rpId: 'id.example.com' } }) });
  });
  afterAll(async () => service.stop());

  it('names the RP ID in the line, so the code and the passkeys are bound to one domain', async () => {
    const user = uniquePhone();
    expect((await service.post(SEND, smsSend(user))).status).toBe(200);
    expect((await linesOf(service, user)).at(-1)).toBe(`@id.example.com #${await service.latestCode(user)}`);
  });
});
