/**
 * lib/otp/test-outbox.ts: who is a test recipient, and the seal of a kept message, which opens
 * only for its own environment and recipient, under the service's key, unaltered and in time.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { deriveHmacKeys } from '../../../lib/keys/hmac-keys';
import { parseStageConfig, type StageConfig } from '../../../lib/platform/config';
import { isTestRecipient, openTestMessage, sealTestMessage, TEST_MESSAGE_TTL_SECONDS } from '../../../lib/otp/test-outbox';

const KEYS = deriveHmacKeys(Buffer.alloc(32, 7));
const NOW = Date.UTC(2030, 0, 1);
const KEY = { environmentId: 'prod', userKey: 'user-key-a' };
const MESSAGE = { channel: 'email' as const, subject: 'Your code', text: 'Your code is 123456.', sentAt: NOW };

describe('testRecipients (config)', () => {
  const local = () => JSON.parse(readFileSync(resolve(__dirname, '../../../config/local.json'), 'utf8')) as StageConfig;
  const withRecipients = (testRecipients: unknown) => {
    const stage = local();
    return { ...stage, environments: stage.environments.map((environment) => ({ ...environment, testRecipients })) };
  };

  it('is empty unless an environment names some, and local.json names one for npm start and the smoke test', () => {
    const stage = local();
    expect(parseStageConfig(stage).environments[0]?.testRecipients).toEqual(['smoke@identity.local']);
    const { testRecipients: _dropped, ...without } = stage.environments[0] as StageConfig['environments'][number];
    expect(parseStageConfig({ ...stage, environments: [without] }).environments[0]?.testRecipients).toEqual([]);
  });

  it('takes email addresses only, five at most', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}@identity.local`);
    expect(parseStageConfig(withRecipients(five)).environments[0]?.testRecipients).toEqual(five);
    expect(() => parseStageConfig(withRecipients([...five, 'f@identity.local']))).toThrow(/testRecipients/);
    expect(() => parseStageConfig(withRecipients(['+14155552671']))).toThrow(/testRecipients/);
  });
});

describe('isTestRecipient', () => {
  const environment = { testRecipients: ['Smoke@Identity.Example'] };

  it('is an email address of the list, compared normalised and exactly', () => {
    expect(isTestRecipient(environment, { authType: 'email', value: 'smoke@identity.example' })).toBe(true);
    expect(isTestRecipient(environment, { authType: 'email', value: 'smoke+1@identity.example' })).toBe(false);
    expect(isTestRecipient(environment, { authType: 'email', value: 'other@identity.example' })).toBe(false);
  });

  it('is never a phone number, and no one when the list is empty', () => {
    expect(isTestRecipient({ testRecipients: ['+14155552671'] }, { authType: 'sms', value: '+14155552671' })).toBe(false);
    expect(isTestRecipient({ testRecipients: [] }, { authType: 'email', value: 'smoke@identity.example' })).toBe(false);
  });
});

describe('the seal of a kept message', () => {
  it('opens for its recipient until 10 minutes have passed, and keeps the code out of the sealed text', () => {
    const kept = sealTestMessage(KEYS, KEY, MESSAGE, NOW);
    expect(kept.notAfter).toBe(NOW + TEST_MESSAGE_TTL_SECONDS * 1000);
    expect(kept.sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(kept.sealed).not.toContain('123456');
    expect(Buffer.from(kept.sealed.split('.')[2] ?? '', 'base64url').toString('latin1')).not.toContain('123456');
    expect(openTestMessage(KEYS, KEY, kept, NOW + TEST_MESSAGE_TTL_SECONDS * 1000 - 1)).toEqual(MESSAGE);
    expect(openTestMessage(KEYS, KEY, kept, NOW + TEST_MESSAGE_TTL_SECONDS * 1000)).toBeUndefined();
  });

  it('seals each message under a fresh IV: the same message twice gives two sealed texts', () => {
    expect(sealTestMessage(KEYS, KEY, MESSAGE, NOW).sealed).not.toBe(sealTestMessage(KEYS, KEY, MESSAGE, NOW).sealed);
  });

  it('does not open for another recipient or environment (an item copied under another key)', () => {
    const kept = sealTestMessage(KEYS, KEY, MESSAGE, NOW);
    expect(openTestMessage(KEYS, { ...KEY, userKey: 'user-key-b' }, kept, NOW)).toBeUndefined();
    expect(openTestMessage(KEYS, { ...KEY, environmentId: 'dev' }, kept, NOW)).toBeUndefined();
  });

  it('does not open under another master secret, altered, or with its deadline moved', () => {
    const kept = sealTestMessage(KEYS, KEY, MESSAGE, NOW);
    expect(openTestMessage(deriveHmacKeys(Buffer.alloc(32, 8)), KEY, kept, NOW)).toBeUndefined();
    const [version, iv, ciphertext, tag] = kept.sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(
      openTestMessage(KEYS, KEY, { ...kept, sealed: [version, iv, flipped.toString('base64url'), tag].join('.') }, NOW),
    ).toBeUndefined();
    expect(openTestMessage(KEYS, KEY, { ...kept, notAfter: kept.notAfter + 60_000 }, NOW)).toBeUndefined();
    expect(openTestMessage(KEYS, KEY, { ...kept, notAfter: NOW }, NOW)).toBeUndefined();
  });

  it('opens nothing that is not a sealed message of this format', () => {
    const kept = sealTestMessage(KEYS, KEY, MESSAGE, NOW);
    for (const sealed of ['', 'v1', kept.sealed.replace(/^v1/, 'v2'), `${kept.sealed}.x`, 'v1.AAAA.AAAA.AAAA']) {
      expect(openTestMessage(KEYS, KEY, { ...kept, sealed }, NOW)).toBeUndefined();
    }
  });
});
