/**
 * An SMS leaves from its destination country's origination number (`sms.originationNumbers`,
 * lib/otp/issue.ts `smsOriginationOf`), as SNS receives it: the `AWS.MM.SMS.OriginationNumber`
 * attribute of the Publish call the local capture endpoint records. A country without an entry is
 * sent by sender id alone.
 */
import { REDIRECT_URI, startTestService, uniquePhone, type TestService } from '../support/harness';

const SEND = '/idp/v1/otp/send';
const US_NUMBER = '+12024570143';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    config: (config) => ({
      ...config,
      environments: config.environments.map((environment) =>
        environment.id === 'local' ? { ...environment, sms: { ...environment.sms, originationNumbers: { US: US_NUMBER } } } : environment,
      ),
    }),
  });
});
afterAll(async () => service.stop());

async function capturedAttributes(to: string): Promise<Record<string, string> | undefined> {
  const captured = (await (await fetch(`${service.services.captureUrl}/messages`)).json()) as {
    messages: Array<{ to: string; attributes?: Record<string, string> }>;
  };
  return captured.messages.find((message) => message.to === to)?.attributes;
}

it('sends to a US number from the US origination number', async () => {
  const user = uniquePhone();
  const response = await service.post(SEND, { auth_type: 'sms', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: user });
  expect(response.status).toBe(200);
  expect(await capturedAttributes(user)).toMatchObject({ 'AWS.MM.SMS.OriginationNumber': US_NUMBER });
});

it('sends to a country without an entry by sender id alone', async () => {
  const user = `+4474001${String(Math.floor(Math.random() * 90_000) + 10_000)}`; // a GB mobile range
  const response = await service.post(SEND, { auth_type: 'sms', client_id: 'local-web', redirect_uri: REDIRECT_URI, user_id: user });
  expect(response.status).toBe(200);
  const attributes = await capturedAttributes(user);
  expect(attributes).toMatchObject({ 'AWS.SNS.SMS.SenderID': 'IdentityDev' });
  expect(attributes?.['AWS.MM.SMS.OriginationNumber']).toBeUndefined();
});
