/**
 * The SMS/voice capture server, driven by the real AWS SDK clients the delivery adapters use: if
 * the SDK can serialise to it and parse its answers (errors included), production code runs
 * against it unchanged.
 */
import { PinpointSMSVoiceV2Client, SendTextMessageCommand, SendVoiceMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { ListTopicsCommand, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { startCaptureServer, type CaptureServer } from '../../../local/capture';

const RECIPIENT = '+15555550100';
const FAILING_RECIPIENT = '+15555550199';
const ORIGINATION = '+15555550000';
const ISO_WITH_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SIGNED = { authorization: 'AWS4-HMAC-SHA256 Credential=local/20250101/us-east-1/sns/aws4_request' };

let server: CaptureServer;
let sns: SNSClient;
let voice: PinpointSMSVoiceV2Client;

beforeEach(async () => {
  server = await startCaptureServer({ failFor: (to) => to === FAILING_RECIPIENT });
  const config = {
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // A stand-in error must surface at once, not after the SDK's retries.
    maxAttempts: 1,
  };
  sns = new SNSClient(config);
  voice = new PinpointSMSVoiceV2Client(config);
});

afterEach(async () => {
  sns.destroy();
  voice.destroy();
  await server.close();
});

function publishSms(overrides: Partial<ConstructorParameters<typeof PublishCommand>[0]> = {}) {
  return sns.send(
    new PublishCommand({
      PhoneNumber: RECIPIENT,
      Message: 'Your code is 012345',
      MessageAttributes: {
        'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
        'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'IDENTITY' },
      },
      ...overrides,
    }),
  );
}

function sendVoice(overrides: Partial<ConstructorParameters<typeof SendVoiceMessageCommand>[0]> = {}) {
  return voice.send(
    new SendVoiceMessageCommand({
      DestinationPhoneNumber: RECIPIENT,
      OriginationIdentity: ORIGINATION,
      MessageBody: '<speak>Your code is <break time="300ms"/>0 1 2 &amp; 3</speak>',
      MessageBodyTextType: 'SSML',
      VoiceId: 'JOANNA',
      ConfigurationSetName: 'identity-local',
      ...overrides,
    }),
  );
}

describe('SNS Publish', () => {
  it('captures an SMS with its attributes and returns the MessageId', async () => {
    const result = await publishSms();

    expect(result.MessageId).toEqual(expect.any(String));
    expect(server.messages()).toEqual([
      {
        channel: 'sms',
        to: RECIPIENT,
        text: 'Your code is 012345',
        sender: 'IDENTITY',
        attributes: { 'AWS.SNS.SMS.SMSType': 'Transactional', 'AWS.SNS.SMS.SenderID': 'IDENTITY' },
        message_id: result.MessageId,
        sent_at: expect.stringMatching(ISO_WITH_MILLIS),
      },
    ]);
  });

  it('answers InvalidParameter for a failFor recipient and captures nothing', async () => {
    await expect(publishSms({ PhoneNumber: FAILING_RECIPIENT })).rejects.toMatchObject({
      name: 'InvalidParameterException',
      Code: 'InvalidParameter',
      message: expect.stringMatching(/^Invalid parameter: PhoneNumber/),
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    expect(server.messages()).toEqual([]);
  });

  it('refuses a topic publish, which production code never makes', async () => {
    await expect(publishSms({ PhoneNumber: undefined, TopicArn: 'arn:aws:sns:us-east-1:123456789012:codes' })).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining('only PhoneNumber publishes'),
    });
    expect(server.messages()).toEqual([]);
  });

  it('refuses a Publish without PhoneNumber or with a number that is not E.164', async () => {
    await expect(publishSms({ PhoneNumber: undefined })).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'Invalid parameter: PhoneNumber Reason: no value for required parameter',
    });
    await expect(publishSms({ PhoneNumber: '5555550100' })).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'Invalid parameter: PhoneNumber Reason: not an E.164 number',
    });
    expect(server.messages()).toEqual([]);
  });

  it('refuses an empty Message and an attribute without a value', async () => {
    await expect(publishSms({ Message: '' })).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(publishSms({ MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String' } } })).rejects.toMatchObject({
      name: 'InvalidParameterValueException',
      Code: 'ParameterValueInvalid',
    });
    expect(server.messages()).toEqual([]);
  });

  it('captures the sms entry of a MessageStructure=json publish', async () => {
    await publishSms({
      MessageStructure: 'json',
      Message: JSON.stringify({ default: 'fallback', sms: 'Your code is 999999' }),
      MessageAttributes: undefined,
    });

    expect(server.messages()).toEqual([expect.objectContaining({ text: 'Your code is 999999' })]);
    expect(server.messages()[0]).not.toHaveProperty('attributes');
  });

  it('refuses any other Query action as InvalidAction', async () => {
    await expect(sns.send(new ListTopicsCommand({}))).rejects.toMatchObject({
      name: 'InvalidAction',
      message: expect.stringContaining('Could not find operation ListTopics'),
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('keeps an error that quotes the request well-formed XML: markup escaped, forbidden characters dropped', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { ...SIGNED, 'content-type': 'application/x-www-form-urlencoded' },
      body: `Action=${encodeURIComponent('List<Topics>\u0001&')}&Version=2010-03-31`,
    });

    expect(response.status).toBe(400);
    const xml = await response.text();
    expect(xml).toContain('<Message>Could not find operation List&lt;Topics&gt;&amp; for version 2010-03-31;');
    expect(xml).not.toContain('\u0001');
  });
});

describe('SendVoiceMessage', () => {
  it('captures SSML as the spoken text and the raw markup', async () => {
    const result = await sendVoice();

    expect(result.MessageId).toEqual(expect.any(String));
    expect(server.messages()).toEqual([
      {
        channel: 'voice',
        to: RECIPIENT,
        text: 'Your code is 0 1 2 & 3',
        ssml: '<speak>Your code is <break time="300ms"/>0 1 2 &amp; 3</speak>',
        sender: ORIGINATION,
        attributes: {
          VoiceId: 'JOANNA',
          MessageBodyTextType: 'SSML',
          ConfigurationSetName: 'identity-local',
        },
        message_id: result.MessageId,
        sent_at: expect.stringMatching(ISO_WITH_MILLIS),
      },
    ]);
  });

  it('captures plain text as is, without ssml', async () => {
    await sendVoice({
      MessageBody: 'Your code is 1 2 3',
      MessageBodyTextType: 'TEXT',
      ConfigurationSetName: undefined,
    });

    expect(server.messages()).toEqual([
      expect.objectContaining({
        text: 'Your code is 1 2 3',
        attributes: { VoiceId: 'JOANNA', MessageBodyTextType: 'TEXT' },
      }),
    ]);
    expect(server.messages()[0]).not.toHaveProperty('ssml');
  });

  it('does not capture a dry run', async () => {
    await expect(sendVoice({ DryRun: true })).resolves.toMatchObject({ MessageId: expect.any(String) });
    expect(server.messages()).toEqual([]);
  });

  it('answers ValidationException for a failFor recipient and captures nothing', async () => {
    await expect(sendVoice({ DestinationPhoneNumber: FAILING_RECIPIENT })).rejects.toMatchObject({
      name: 'ValidationException',
      Reason: 'INVALID_PARAMETER',
      Fields: [{ Name: 'DestinationPhoneNumber', Message: expect.any(String) }],
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    expect(server.messages()).toEqual([]);
  });

  it('refuses a call without OriginationIdentity or MessageBody', async () => {
    await expect(sendVoice({ OriginationIdentity: undefined })).rejects.toMatchObject({
      name: 'ValidationException',
      Reason: 'MISSING_PARAMETER',
      Fields: [{ Name: 'OriginationIdentity', Message: 'OriginationIdentity is required' }],
    });
    await expect(sendVoice({ MessageBody: undefined })).rejects.toMatchObject({
      name: 'ValidationException',
      Reason: 'MISSING_PARAMETER',
    });
    expect(server.messages()).toEqual([]);
  });

  it('refuses any other JSON target as UnknownOperationException', async () => {
    const sendText = new SendTextMessageCommand({ DestinationPhoneNumber: RECIPIENT, MessageBody: 'hi' });

    await expect(voice.send(sendText)).rejects.toMatchObject({
      name: 'UnknownOperationException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(server.messages()).toEqual([]);
  });
});

describe('outbox routes and server hygiene', () => {
  it('serves GET /messages oldest first and empties on POST /clear', async () => {
    const sms = await publishSms();
    const call = await sendVoice();

    const listed = await fetch(`${server.url}/messages`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toBe('application/json');
    expect(await listed.json()).toEqual({ messages: server.messages() });
    expect(server.messages().map((m) => m.message_id)).toEqual([sms.MessageId, call.MessageId]);

    const cleared = await fetch(`${server.url}/clear`, { method: 'POST' });
    expect(cleared.status).toBe(204);
    expect(server.messages()).toEqual([]);
    expect(await (await fetch(`${server.url}/messages`)).json()).toEqual({ messages: [] });
  });

  it('clear() empties the captured messages', async () => {
    await publishSms();
    server.clear();
    expect(server.messages()).toEqual([]);
  });

  it('refuses an unsigned AWS request with 403', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `Action=Publish&Version=2010-03-31&PhoneNumber=${encodeURIComponent(RECIPIENT)}&Message=hi`,
    });

    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>MissingAuthenticationToken</Code>');
    expect(server.messages()).toEqual([]);
  });

  it('answers 413 for a body over 256 KiB', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { ...SIGNED, 'x-amz-target': 'PinpointSMSVoiceV2.SendVoiceMessage' },
      body: JSON.stringify({ MessageBody: 'x'.repeat(300 * 1024) }),
    });

    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ __type: 'RequestEntityTooLargeException' });
  });

  it('answers 404 for an unknown route', async () => {
    const response = await fetch(`${server.url}/nope`);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not_found', error_description: expect.any(String) });
  });

  it('close() does not wait for the SDK keep-alive sockets', async () => {
    const own = await startCaptureServer();
    const client = new SNSClient({
      endpoint: own.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(new PublishCommand({ PhoneNumber: RECIPIENT, Message: 'hi' }));

    const started = Date.now();
    await own.close();
    client.destroy();

    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('delayFor: a provider that accepts at once and answers late', () => {
  const config = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 };

  it('captures the SMS and the call on arrival, and answers each only after its delay', async () => {
    const slow = await startCaptureServer({ delayFor: (_to, channel) => (channel === 'sms' ? 300 : 200) });
    const slowSns = new SNSClient({ ...config, endpoint: slow.url });
    const slowVoice = new PinpointSMSVoiceV2Client({ ...config, endpoint: slow.url });
    try {
      const started = Date.now();
      const sms = slowSns.send(new PublishCommand({ PhoneNumber: RECIPIENT, Message: 'late' }));
      const call = slowVoice.send(
        new SendVoiceMessageCommand({ DestinationPhoneNumber: RECIPIENT, OriginationIdentity: ORIGINATION, MessageBody: 'late' }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(
        slow
          .messages()
          .map((message) => message.channel)
          .sort(),
      ).toEqual(['sms', 'voice']);

      await Promise.all([sms, call]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      slowSns.destroy();
      slowVoice.destroy();
      await slow.close();
    }
  });

  it('close() drops the answers still held back', async () => {
    const slow = await startCaptureServer({ delayFor: () => 60_000 });
    const slowSns = new SNSClient({ ...config, endpoint: slow.url });
    const pending = slowSns.send(new PublishCommand({ PhoneNumber: RECIPIENT, Message: 'never answered' })).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));

    const started = Date.now();
    await slow.close();

    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBe('failed');
    slowSns.destroy();
  });
});
