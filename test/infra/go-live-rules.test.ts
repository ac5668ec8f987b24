/**
 * What must not ship (infra/go-live.ts): a production-like stage whose key is published in the
 * repository, that holds an example domain or a placeholder id, that allows SMS to a country
 * without an origination number, or (any stage) whose SMS spend limit is above the account's quota,
 * fails synthesis with a message naming each. The filled-in copy of config/prod.json
 * (test/infra/production-stage.ts) passes; throw-away stages are exempt. Pure: nothing is
 * synthesized here (cdk-synth.test.ts runs `cdk synth` on both).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/bundling';
import {
  COUNTRIES_WITHOUT_SENDER_ID,
  exposedCredentials,
  goLiveProblems,
  hashRepositoryTokens,
  isProductionLike,
  missingOriginations,
  placeholdersIn,
  repositoryTokenHashes,
} from '../../infra/go-live';
import { loadStageFile } from '../../infra/stage';
import { parseDeployableStage } from '../../infra/stage-config';
import { productionConfigDir } from './production-stage';

/** The parts of a stage file these tests break on purpose. */
interface Raw {
  clients: Array<{ apiKeySha256: string[]; redirectUris: string[] }>;
  environments: Array<{ sms: { originationNumbers: Record<string, string | undefined> } }>;
  deployment: {
    removalPolicy?: string;
    emailIdentities: Array<{ identity: string }>;
    smsAccountSettings?: { monthlySpendLimitUsd?: number; grantedSpendQuotaUsd?: number };
  };
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const filledIn = (): Raw => JSON.parse(readFileSync(join(productionConfigDir(), 'prod.json'), 'utf8')) as Raw;
const template = (): Raw => JSON.parse(readFileSync(join(PROJECT_ROOT, 'config/prod.json'), 'utf8')) as Raw;

/** Loads `raw` as `stage` the way synthesis does (from its own config directory). */
function load(raw: Raw, stage = 'prod') {
  const dir = mkdtempSync(join(tmpdir(), 'go-live-'));
  writeFileSync(join(dir, `${stage}.json`), JSON.stringify(raw));
  return loadStageFile(stage, dir);
}

/** The message synthesis stops with, or '' when it does not. */
function refusal(raw: Raw, stage = 'prod'): string {
  try {
    load(raw, stage);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('the committed production template', () => {
  it('is refused, with every placeholder named and the way out (a filled-in copy with -c configDir)', () => {
    // Act
    const message = refusal(template());

    // Assert
    expect(message).toMatch(/✖ clients\[1\] "partner-backend": apiKeySha256\[0\] is the hash of a key written in [^:]*docs\/deploy\.md/);
    expect(message).toContain('✖ issuer: "https://id.example.com" uses id.example.com, an example domain (RFC 2606 reserves example.com)');
    expect(message).toContain('✖ deployment.customDomain.certificateArn: "arn:aws:acm:eu-west-1:111122223333:certificate/');
    expect(message).toContain('uses the AWS documentation account id 111122223333');
    expect(message).toContain('holds an all-zero id, a placeholder');
    expect(message).toContain(
      '✖ environments[0].voice.originationIdentity: "phone-0123456789abcdef0123456789abcdef" holds the id 0123456789abcdef…',
    );
    expect(message).toContain('✖ environments[0].sms.originationNumbers.US: "+12025550143" is a fictional NANP number');
    expect(message).toContain('-c configDir=<dir>');
  });

  it('passes every rule once filled in, and is production-like by default (no removalPolicy: retain)', () => {
    // Arrange
    const raw = filledIn();
    delete raw.deployment.removalPolicy;

    // Act
    const loaded = load(raw);

    // Assert
    expect(isProductionLike(loaded.config)).toBe(true);
    expect(goLiveProblems(raw, loaded.config, PROJECT_ROOT)).toEqual([]);
  });
});

describe('rule 1: a key whose clear text is in the repository', () => {
  it('refuses the documented example key, naming the client and the file that prints it', () => {
    // Arrange: the filled-in copy with the key docs/deploy.md publishes.
    const raw = filledIn();
    raw.clients[1]!.apiKeySha256.push(sha256('example-prod-partner-key-NOT-A-SECRET'));

    // Act
    const message = refusal(raw);

    // Assert
    expect(message).toMatch(/✖ clients\[1\] "partner-backend": apiKeySha256\[1\] is the hash of a key written in [^:]*docs\/deploy\.md/);
    expect(message).not.toMatch(/apiKeySha256\[0\]/);
  });

  it('finds a key however a text writes it: a Bearer header, quoted, KEY=value, at the end of a sentence; and skips dependencies', () => {
    // Arrange: a repository without .git (a clean tarball), walked.
    const root = mkdtempSync(join(tmpdir(), 'go-live-repo-'));
    const keys = [
      'bearer-key-0001',
      'quoted-key-0002',
      'assigned-key-0003',
      'sentence-key-0004',
      'vendored-key-0005',
      'unwritten-key-0006',
    ];
    writeFileSync(
      join(root, 'README.md'),
      `curl -H "Authorization: Bearer ${keys[0]}"\nconst key = '${keys[1]}';\nKEY=${keys[2]}\nThe key is ${keys[3]}.\n`,
    );
    mkdirSync(join(root, 'node_modules/dep'), { recursive: true });
    writeFileSync(join(root, 'node_modules/dep/index.js'), `"${keys[4]}"`);
    const config = parseDeployableStage(filledIn(), 'prod.json');
    config.clients[1]!.apiKeySha256 = keys.map(sha256);

    // Act
    const problems = exposedCredentials(config, root);

    // Assert
    expect(problems.map((problem) => /apiKeySha256\[(\d)\] is the hash of a key written in ([^:]+):/.exec(problem)?.slice(1))).toEqual([
      ['0', 'README.md'],
      ['1', 'README.md'],
      ['2', 'README.md'],
      ['3', 'README.md'],
    ]);
  });

  it('hashes the whole repository fast enough to run on every synthesis', () => {
    // Act: afresh (synthesis computes it once per process).
    const empty = repositoryTokenHashes(mkdtempSync(join(tmpdir(), 'go-live-empty-')));
    const started = process.cpuUsage();
    const whole = hashRepositoryTokens(PROJECT_ROOT);
    const used = process.cpuUsage(started);
    const cpuSeconds = (used.user + used.system) / 1e6;

    // Assert: CPU time, which other work on the machine does not inflate as it does wall time
    // (0.4-0.6 s measured on a 2-core machine; synthesis itself takes tens of seconds).
    expect(empty.size).toBe(0);
    expect(whole.get(sha256('example-prod-partner-key-NOT-A-SECRET'))).toContain('docs/deploy.md');
    expect(cpuSeconds).toBeLessThan(2);
  });
});

describe('rule 2: examples and placeholders in the stage file', () => {
  it.each([
    ['https://id.example.com', 'uses id.example.com, an example domain (RFC 2606 reserves example.com)'],
    ['ops@example.net', 'uses example.net, an example domain (RFC 2606 reserves example.net)'],
    ['https://login.example.org/cb', 'uses login.example.org, an example domain (RFC 2606 reserves example.org)'],
    ['no-reply@shop.example', 'uses shop.example, a name under .example, which RFC 2606 reserves'],
    ['https://id.test', 'uses id.test, a name under .test, which RFC 2606 reserves'],
    ['mail.invalid', 'uses mail.invalid, a name under .invalid, which RFC 2606 reserves'],
    ['http://localhost:3000', 'uses localhost, a name RFC 6761 reserves for the local host'],
    ['http://app.localhost/cb', 'uses app.localhost, a name RFC 6761 reserves for the local host'],
    ['http://127.0.0.1:3000', 'uses 127.0.0.1, a loopback address'],
    ['arn:aws:sns:eu-west-1:111122223333:alarms', 'uses the AWS documentation account id 111122223333, not a real account'],
    ['123456789012', 'uses the AWS documentation account id 123456789012, not a real account'],
    ['arn:aws:iam::000000000000:role/x', 'uses the AWS documentation account id 000000000000, not a real account'],
    ['arn:aws:acm:eu-west-1:210987654321:certificate/00000000-0000-0000-0000-000000000000', 'holds an all-zero id, a placeholder'],
    ['pool-0123456789ABCDEF0123456789abcdef', 'holds the id 0123456789abcdef…, a placeholder'],
    ['+14165550199', 'is a fictional NANP number (555-0100 to 555-0199 are reserved for fiction), not an origination number'],
  ])('names %j', (value, finding) => {
    expect(placeholdersIn(value)).toEqual([finding]);
  });

  it.each([
    'Example',
    'https://id.exampleco.com',
    'no-reply@notexample.com',
    'https://example.com.au/cb',
    'arn:aws:acm:eu-west-1:210987654321:certificate/9da038cf-ba19-a9d9-23ea-89bf839a5b0e',
    '+14165550200',
    '+442079460958',
    'phone-4f1c2a7e9b3d4c58a6e10d2f8b7c3e95',
  ])('leaves %j alone', (value) => {
    expect(placeholdersIn(value)).toEqual([]);
  });

  it('names the field of each placeholder, wherever it is in the file', () => {
    // Arrange
    const raw = filledIn();
    raw.clients[0]!.redirectUris.push('https://app.example.com/callback');
    raw.deployment.emailIdentities[1]!.identity = 'partner.test';

    // Act
    const message = refusal(raw);

    // Assert
    expect(message).toContain('✖ clients[0].redirectUris[1]: "https://app.example.com/callback" uses app.example.com');
    expect(message).toContain('✖ deployment.emailIdentities[1].identity: "partner.test" uses partner.test');
  });
});

describe('rule 3: an SMS country that accepts no sender id needs an origination number', () => {
  it('covers the countries the AWS guide names: the United States, Canada and China', () => {
    expect(COUNTRIES_WITHOUT_SENDER_ID).toEqual(['US', 'CA', 'CN']);
  });

  it('refuses an allowed US without one, naming the environment and the country', () => {
    // Arrange
    const raw = filledIn();
    delete raw.environments[0]!.sms.originationNumbers.US;

    // Act
    const message = refusal(raw);

    // Assert
    expect(message).toContain(
      '✖ environments[0] "web": SMS to US needs an origination number of US (it accepts no sender id): add sms.originationNumbers.US, or remove US from sms.allowedCountries',
    );
    expect(message).not.toContain('SMS to CA');
  });

  it('refuses an entry whose number is of another country (NANP shares +1: the area code tells)', () => {
    // Arrange
    const raw = filledIn();
    raw.environments[0]!.sms.originationNumbers.CA = raw.environments[0]!.sms.originationNumbers.US!;

    // Act
    const message = refusal(raw);

    // Assert
    expect(message).toMatch(/✖ environments\[0\] "web": sms\.originationNumbers\.CA \(\+1\d+\) is not a number of CA/);
  });

  it('takes sms.originationNumber when it is a number of that country, and nothing for a country with sender ids', () => {
    // Arrange
    const config = parseDeployableStage(filledIn(), 'prod.json');
    const web = config.environments[0]!;
    web.sms.originationNumbers = { CA: '+16134570143' };
    web.sms.originationNumber = '+12024570143';
    const other = structuredClone(config);
    other.environments[0]!.sms.originationNumber = '+442079460958';

    // Act, Assert
    expect(missingOriginations(config)).toEqual([]);
    expect(missingOriginations(other)).toEqual([expect.stringContaining('SMS to US needs an origination number of US')]);
  });
});

describe('rule 4: the SMS spend limit within the account’s quota (every stage: SNS refuses it anywhere)', () => {
  it('refuses a limit above the quota the stage file states, defaulting to a new account’s 1 USD', () => {
    // Arrange
    const prod = filledIn();
    prod.deployment.smsAccountSettings = { monthlySpendLimitUsd: 1000 };
    const dev = JSON.parse(readFileSync(join(PROJECT_ROOT, 'config/dev.json'), 'utf8')) as Raw;
    dev.deployment.smsAccountSettings = { monthlySpendLimitUsd: 50, grantedSpendQuotaUsd: 20 };

    // Act, Assert
    expect(refusal(prod)).toContain(
      '✖ deployment.smsAccountSettings.monthlySpendLimitUsd (1000) is above grantedSpendQuotaUsd (1): SNS refuses it and the deployment fails',
    );
    expect(refusal(dev, 'dev')).toContain('monthlySpendLimitUsd (50) is above grantedSpendQuotaUsd (20)');
  });

  it('accepts a limit up to the granted quota, and the template’s limit as a new account accepts it', () => {
    const raw = filledIn();
    raw.deployment.smsAccountSettings = { monthlySpendLimitUsd: 1000, grantedSpendQuotaUsd: 1000 };
    expect(refusal(raw)).toBe('');
    expect(template().deployment.smsAccountSettings).toEqual({ monthlySpendLimitUsd: 1, grantedSpendQuotaUsd: 1 });
  });
});

describe('throw-away stages', () => {
  it.each(['dev', 'local'])('config/%s.json (removalPolicy destroy) keeps its examples and loads', (stage) => {
    // Arrange
    const raw = JSON.parse(readFileSync(join(PROJECT_ROOT, `config/${stage}.json`), 'utf8')) as Raw;

    // Act
    const loaded = loadStageFile(stage);

    // Assert
    expect(isProductionLike(loaded.config)).toBe(false);
    expect(JSON.stringify(raw)).toMatch(/example\.com|localhost|identity\.local/);
    expect(goLiveProblems(raw, loaded.config, PROJECT_ROOT)).toEqual([]);
  });

  it('are exempt only while they are throw-away: dev with removalPolicy retain is held to the rules', () => {
    const raw = JSON.parse(readFileSync(join(PROJECT_ROOT, 'config/dev.json'), 'utf8')) as Raw;
    raw.deployment.removalPolicy = 'retain';
    expect(refusal(raw, 'dev')).toMatch(/✖ issuer|example domain/);
  });
});
