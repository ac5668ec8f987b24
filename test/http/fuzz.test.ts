/**
 * A standing fuzz guard: thousands of generated requests against every public endpoint, through
 * the local runtime, each checked against the contracts a client and an operator rely on:
 *
 *   - never a 5xx (a client mistake is a 4xx; the fuzz makes no dependency fail);
 *   - a 4xx body is exactly `{"error", "error_description"}`, both strings;
 *   - every response within RESPONSE_BOUND_MS, the whole run within RUN_BOUND_MS;
 *   - a 4xx changes no state: no DynamoDB write took effect other than an UpdateItem (the attempt
 *     and wrong-try counters), and nothing was delivered; a 200 from otp/send delivered one message;
 *   - victims who were sent a code before the fuzz, and whom the generated requests name, can still
 *     exchange it afterwards.
 *
 * Reproducible: a fixed seed (FUZZ_SEED overrides it to explore); fast-check prints the seed, the
 * path and the shrunk request of a failure, and every failing request it met on the way: the
 * service keeps state, so a shrunk request may fail only because of one before it (a lone
 * surrogate that broke the SES client made the next, valid, send fail too). Requests are sent with
 * node:http rather than fetch, so a request can have no Content-Type at all and a body can hold
 * bytes that are not UTF-8.
 */
import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { LOCAL_API_KEY, REDIRECT_URI, startTestService, uniqueEmail, uniquePhone, type TestService } from '../support/harness';
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from '../support/recording-proxy';

const SEED = Number(process.env.FUZZ_SEED ?? 20_250_611);
const RUNS = 5_000;
/** Every answer: the slowest seen is about 250 ms (a first send: secrets, SES), most take 1-7 ms. */
const RESPONSE_BOUND_MS = 2_000;
/**
 * The whole run: 15-25 s alone on two cores, about 60 s inside `npm test` beside the CDK synthesis
 * tests. A bound against a blow-up (a scan gone quadratic, a hang), not a benchmark.
 */
const RUN_BOUND_MS = 120_000;

const SEND = '/idp/v1/otp/send';
const TOKEN = '/idp/v1/account/token';
const INTROSPECT = '/idp/v1/account/introspect';
const REVOKE = '/idp/v1/account/revoke';
const JWKS = '/.well-known/jwks.json';
const METADATA = '/.well-known/oauth-authorization-server';

/**
 * The victims' codes belong to a client of their own that, like local-backend, requires the API
 * key on otp/send. Generated sends may name it but never carry the key, and generated token
 * requests never name it: a matching wrong code would rightly count against the victims' codes
 * (they die after `maxTries`), and that is the code's rule working, not state changed by a refusal.
 */
const VICTIM_CLIENT = 'fuzz-victims';
/**
 * Limits that the often-named users (the victims) reach now and then, so that 429s are part of the
 * fuzz, and that never hold anyone for long: the fake clock moves a second every CLOCK_STEP_EVERY
 * requests, so a block lifts within that many requests, and the victims' codes (an hour's life
 * here) outlive the whole run.
 */
const LIMIT = { maxAttempts: 2, windowSeconds: 2, blockSeconds: 2 };
const CLOCK_STEP_EVERY = 20;
const WRITES = new Set(['PutItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'UpdateItem']);

/**
 * A write that changes what a refused request must not change: anything but the counters (the
 * attempt counters, `limit#` items: the attempt, the failure run; the SMS fraud guards' counters,
 * `guard#` items, taken before a later guard refuses) and a guess spending one of a live code's tries
 * (its UpdateExpression only touches the live code's tries and guesses). A code save or discard,
 * an opaque token, a delete: state.
 */
function changesState(exchange: RecordedExchange): boolean {
  if (!WRITES.has(exchange.operation)) return false;
  if (exchange.operation !== 'UpdateItem') return true;
  if (exchange.pk?.startsWith('limit#') === true || exchange.pk?.startsWith('guard#') === true) return false;
  return !(
    exchange.pk?.startsWith('code#') === true && exchange.updateExpression?.startsWith('SET #live.#tries = #live.#tries + :one') === true
  );
}

let service: TestService;
let dynamodb: RecordingProxy;
let ses: RecordingProxy;
let phoneDeliveries = 0;
const victims = [uniqueEmail('victim'), uniqueEmail('victim'), uniquePhone()];
const victimCodes = new Map<string, string>();
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  dynamodb = await startRecordingProxy(required('TEST_DYNAMODB_ENDPOINT'));
  ses = await startRecordingProxy(required('TEST_SES_URL'));
  service = await startTestService({
    dynamodbEndpoint: dynamodb.endpoint,
    sesUrl: ses.endpoint,
    // The capture server asks this of every SMS and voice message it is about to accept.
    capture: {
      failFor: () => {
        phoneDeliveries += 1;
        return false;
      },
    },
    config: (config) => ({
      ...config,
      environments: config.environments.map((environment) => ({
        ...environment,
        code: { ...environment.code, ttlSeconds: 3600 },
        // The victims' failure runs must not reach the cap either: the fuzzer names them often.
        limits: { ...environment.limits, token: LIMIT, send: LIMIT, failures: { maxConsecutive: 10_000, windowSeconds: 60 } },
      })),
      clients: [...config.clients, { ...config.clients.find((client) => client.id === 'local-backend')!, id: VICTIM_CLIENT }],
      // No browser origins: an OPTIONS is then one more method a path does not take (405), as the
      // generator means it; where CORS is on, API Gateway answers it (test/http/cors.test.ts).
      deployment: { ...config.deployment, cors: undefined },
    }),
  });
  for (const victim of victims) {
    const response = await service.post(
      SEND,
      { auth_type: victim.includes('@') ? 'email' : 'sms', client_id: VICTIM_CLIENT, redirect_uri: REDIRECT_URI, user_id: victim },
      { headers: { Authorization: `Bearer ${LOCAL_API_KEY}` } },
    );
    expect(response.status).toBe(200);
    victimCodes.set(victim, await service.latestCode(victim));
  }
});
afterAll(async () => {
  agent.destroy();
  await service.stop();
  await dynamodb.stop();
  await ses.stop();
});

// ---- Generators ------------------------------------------------------------------------------

const loneSurrogate = fc
  .oneof(fc.integer({ min: 0xd800, max: 0xdbff }), fc.integer({ min: 0xdc00, max: 0xdfff }))
  .map((unit) => String.fromCharCode(unit));
const controlCharacter = fc.integer({ min: 0, max: 0x1f }).map((unit) => String.fromCharCode(unit));
const oddCharacter = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: controlCharacter },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('\u0000', '\u007f', '\u2028', '\ufeff', '\ufffd', '😀', 'é', '%', '"', '\\', '&', '=', '+', '@', '%code%'),
  },
);
/** A string of at most `max` characters, any of them odd. */
const oddText = (max: number) => fc.string({ unit: oddCharacter, maxLength: max });
const longText = fc
  .tuple(fc.constantFrom(300, 2_100, 5_000, 20_000), fc.constantFrom('x', '\u0000', '😀', '%code%', '\ud800'))
  .map(([length, unit]) => unit.repeat(length));
const oddString = fc.oneof({ weight: 8, arbitrary: oddText(24) }, { weight: 1, arbitrary: longText });

/** `arbitrary` in one case out of `every`, else undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** Every JSON shape a field can take, other than the ones a plausible value has. */
const anyShape: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(oddString, { maxLength: 3 }),
  fc.dictionary(oddText(8), oddString, { maxKeys: 3 }),
);

/** A field: mostly a plausible value, else an odd string, another JSON shape, or missing. */
function field(plausible: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: plausible },
    { weight: 1, arbitrary: oddString },
    { weight: 1, arbitrary: anyShape },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const victimVariants = fc.constantFrom(...victims.flatMap((victim) => [victim, victim.toUpperCase(), ` ${victim} `]));
const userId = fc.oneof(
  { weight: 3, arbitrary: victimVariants },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]{1,10}$/).map((name) => `${name}@example.com`) },
  { weight: 2, arbitrary: fc.integer({ min: 2_000_000, max: 9_999_999 }).map((number) => `+1415${number}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '+447700900123',
      '+4915112345678',
      '+14155552671',
      '(415) 555-2671',
      'not-an-email',
      'a@b',
      '@example.com',
      'jörg@example.com',
    ),
  },
);
const authType = fc.constantFrom('email', 'sms', 'EMAIL', 'voice');
const redirectUri = fc.oneof(
  { weight: 6, arbitrary: fc.constant(REDIRECT_URI) },
  { weight: 1, arbitrary: fc.constantFrom(`${REDIRECT_URI}/`, 'https://evil.example/callback', 'HTTP://127.0.0.1:3000/callback') },
);
const sendClients = fc.constantFrom('local-web', 'local-opaque', 'local-backend', VICTIM_CLIENT, 'nobody');
const tokenClients = fc.constantFrom('local-web', 'local-opaque', 'local-backend', 'nobody');
const code = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^\d{6}$/) },
  { weight: 1, arbitrary: fc.constantFrom('000000', '12345', '1234567', 'abcdef', ' 123456') },
);
const base64url43 = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/);
/** Unknown members, which the endpoints ignore (RFC 6749 §3.1). */
const extraMembers = fc.dictionary(oddText(8), anyShape, { maxKeys: 2 });

/**
 * A request's fields: mostly near-valid (a consistent request with up to two fields spoiled, so
 * that generated requests reach the attempt counter, the code store and delivery), else wild
 * (every field drawn on its own, most requests refused at validation).
 */
function fieldsOf(
  valid: fc.Arbitrary<Record<string, unknown>>,
  wild: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<Record<string, unknown>> {
  // A spoil replaces a field, or slips an odd character into its value (`%code%\ud800`), which is
  // what reaches deepest: the value is otherwise right.
  const spoil = fc.oneof(
    {
      weight: 2,
      arbitrary: fc.tuple(fc.nat(), oddCharacter).map(
        ([at, character]) =>
          (value: unknown) =>
            typeof value === 'string'
              ? `${value.slice(0, at % (value.length + 1))}${character}${value.slice(at % (value.length + 1))}`
              : character,
      ),
    },
    { weight: 1, arbitrary: fc.oneof(oddString, anyShape, fc.constant(undefined)).map((replacement) => () => replacement) },
  );
  const nearValid = fc.tuple(valid, fc.array(fc.tuple(fc.nat(), spoil), { maxLength: 2 })).map(([fields, spoils]) => {
    // Spoil fields that are there: an absent optional field has nothing to spoil.
    const names = Object.keys(fields).filter((name) => fields[name] !== undefined);
    const copy = { ...fields };
    for (const [pick, apply] of spoils) {
      const name = names[pick % names.length] as string;
      copy[name] = apply(copy[name]);
    }
    return copy;
  });
  return fc.oneof({ weight: 3, arbitrary: nearValid }, { weight: 1, arbitrary: wild });
}

const sendFields = fieldsOf(
  fc
    .record({
      user: userId,
      client: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('local-web', 'local-opaque') }, { weight: 1, arbitrary: sendClients }),
      locale: sometimes(fc.constantFrom('en-US', 'de-DE', 'pt-BR', 'xx-YY'), 3),
      message: sometimes(fc.constantFrom('%code%', 'Code: %code% 😀', 'no placeholder'), 2),
      voice: fc.boolean(),
      challenge: sometimes(base64url43, 4),
    })
    .map((parts) => {
      const sms = !parts.user.includes('@');
      return {
        auth_type: sms ? 'sms' : 'email',
        client_id: parts.client,
        redirect_uri: REDIRECT_URI,
        user_id: parts.user,
        locale: parts.locale,
        message: parts.message,
        method: sms && parts.voice ? 'voice_with_otp' : undefined,
        code_challenge: parts.challenge,
        code_challenge_method: parts.challenge === undefined ? undefined : 'S256',
      };
    }),
  fc.record({
    auth_type: field(authType),
    client_id: field(sendClients),
    redirect_uri: field(redirectUri),
    user_id: field(userId),
    locale: field(fc.constantFrom(undefined, 'en-US', 'de-DE', 'pt-BR', 'xx-YY', 'en')),
    message: field(fc.constantFrom(undefined, undefined, '%code%', 'Code: %code% 😀', 'no placeholder')),
    method: field(fc.constantFrom(undefined, undefined, undefined, 'voice_with_otp', 'carrier_pigeon')),
    code_challenge: field(fc.oneof(fc.constant(undefined), base64url43)),
    code_challenge_method: field(fc.constantFrom(undefined, 'S256', 'plain')),
  }),
);
const codeVerifier = fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/);
/** A string shaped like a refresh token (family id and secret), of no family. */
const refreshTokenShaped = fc.stringMatching(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
const tokenFields = fieldsOf(
  fc.record({ user: userId, client: tokenClients, code, inferred: fc.boolean(), verifier: sometimes(codeVerifier, 4) }).map((parts) => ({
    grant_type: 'authorization_code',
    code: parts.code,
    client_id: parts.client,
    redirect_uri: REDIRECT_URI,
    user_id: parts.user,
    auth_type: parts.inferred ? undefined : parts.user.includes('@') ? 'email' : 'sms',
    code_verifier: parts.verifier,
  })),
  fc.record({
    grant_type: field(fc.constantFrom('authorization_code', 'authorization_code', 'password', 'refresh_token', '')),
    refresh_token: field(fc.oneof(fc.constant(undefined), refreshTokenShaped)),
    code: field(code),
    client_id: field(tokenClients),
    redirect_uri: field(redirectUri),
    user_id: field(userId),
    auth_type: field(fc.constantFrom(undefined, 'email', 'sms')),
    code_verifier: field(fc.oneof(fc.constant(undefined), codeVerifier, fc.constant('short'))),
  }),
);
const token = fc.oneof(base64url43, fc.constant('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'), refreshTokenShaped, oddText(60));
const introspectFields = fieldsOf(
  fc.record({ token, token_type_hint: sometimes(fc.constantFrom('access_token', 'refresh_token'), 3) }),
  fc.record({ token: field(token), token_type_hint: field(fc.constantFrom(undefined, 'access_token', 'refresh_token')) }),
);
const revokeFields = fieldsOf(
  fc.record({ token, token_type_hint: sometimes(fc.constantFrom('access_token', 'refresh_token'), 3), client_id: tokenClients }),
  fc.record({
    token: field(token),
    token_type_hint: field(fc.constantFrom(undefined, 'access_token', 'refresh_token', 'id_token')),
    client_id: field(tokenClients),
  }),
);

/** Fields with the generated extras, undefined ones left out (as a client would omit them). */
function membersOf(fields: Record<string, unknown>, extras: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries({ ...extras, ...fields }).filter(([, value]) => value !== undefined);
}

/** A JSON object text; optionally one member name again (in any spelling) with another value. */
function jsonText(members: Array<[string, unknown]>, duplicate?: { pick: number; escape: boolean; value: unknown }): string {
  const written = members.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
  if (duplicate !== undefined) {
    const [name] = members[duplicate.pick % Math.max(members.length, 1)] ?? ['user_id'];
    const units = Array.from({ length: name.length }, (_, index) => `\\u${name.charCodeAt(index).toString(16).padStart(4, '0')}`);
    const spelled = duplicate.escape ? `"${units.join('')}"` : JSON.stringify(name);
    written.splice(duplicate.pick % (written.length + 1), 0, `${spelled}:${JSON.stringify(duplicate.value ?? null)}`);
  }
  return `{${written.join(',')}}`;
}

/** A form body: string values as they are, other shapes as their JSON text; sometimes a name twice. */
function formText(members: Array<[string, unknown]>, repeat: number | undefined): string {
  const pairs = members.map(([name, value]): [string, string] => [name, typeof value === 'string' ? value : JSON.stringify(value)]);
  const repeated = repeat === undefined ? undefined : pairs[repeat % Math.max(pairs.length, 1)];
  if (repeated !== undefined) pairs.push(repeated);
  return new URLSearchParams(pairs).toString();
}

const duplicate = sometimes(fc.record({ pick: fc.nat(), escape: fc.boolean(), value: anyShape }), 8);
const rawBody = fc.oneof(
  oddString,
  fc.constantFrom(
    '',
    'null',
    '[]',
    '"x"',
    '{',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    'user_id=a&user_id=b',
    'a=%ED%A0%80',
    'a=%FF&b=%zz',
    '&&&=',
    '\ufeff{}',
  ),
  fc.constantFrom(
    '['.repeat(8_000) + ']'.repeat(8_000),
    `${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}`,
    `{"a":"${'\\ud800'.repeat(2_000)}"}`,
  ),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
/** The right media type mostly; else the other one, variants, nonsense, or none at all. */
function contentType(right: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(right) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        JSON_TYPE,
        FORM_TYPE,
        `${right}; charset=utf-8`,
        right.toUpperCase(),
        `${right};charset=latin1`,
        'text/plain',
        'multipart/form-data; boundary=x',
        '',
        undefined,
      ),
    },
    { weight: 1, arbitrary: headerText(40) },
  );
}

/** Header values HTTP can carry: visible ASCII, space, tab and obs-text (Latin-1), nothing else. */
function headerText(max: number): fc.Arbitrary<string> {
  const unit = fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
    .map((unit) => String.fromCharCode(unit));
  return fc.string({ unit, maxLength: max });
}

/** Never the real key on a route where it would let a request through for the victims' client. */
function authorization(realKey: boolean): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: realKey ? 4 : 0, arbitrary: fc.constant(`Bearer ${LOCAL_API_KEY}`) },
    { weight: 2, arbitrary: headerText(80).map((token) => `Bearer ${token}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Basic bG9jYWwtYmFja2VuZDp4',
        'bearer x',
        'Bearer a b',
        `Bearer ${'x'.repeat(4_000)}`,
      ),
    },
    { weight: 1, arbitrary: headerText(80) },
  );
}

const query = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.constant('?env_id=local') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '?env_id=',
      '?env_id=LOCAL',
      '?env_id=nope',
      '?env_id=local%20',
      '?env_id=%ED%A0%80',
      '?env_id=%FF',
      '?env_id=%00',
      '?env_id=%',
      '?env_id=local&env_id=nope',
      '?env_id=nope&env_id=local',
      '?env_id[]=local',
      '?env_id=..%2Flocal',
      '?x=%ED%A0%80&env_id=local',
      '?%ED%A0%80=1',
      '?&&=&',
    ),
  },
  // At most 2,000 characters: Node's HTTP server refuses request lines over 16 KiB itself (431, no body).
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        oddText(40),
        fc.constantFrom('x', '😀').map((unit) => unit.repeat(500)),
      )
      .map((value) => `?env_id=${encodeURIComponent(value.toWellFormed())}`),
  },
);

interface FuzzRequest {
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer | undefined;
}

function request(
  kind: string,
  method: string,
  path: string,
  headers: Record<string, string | undefined>,
  body: string | Buffer | undefined,
): FuzzRequest {
  const present = Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return { kind, method, path, headers: present, body: method === 'GET' || method === 'HEAD' ? undefined : body };
}

/** POST to a body endpoint in its media type `type`; sometimes a repeated name or a raw body. */
function postRequest(
  kind: string,
  path: string,
  type: string,
  fields: fc.Arbitrary<Record<string, unknown>>,
  realKey: boolean,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      fields,
      extras: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extraMembers }),
      duplicate,
      repeat: sometimes(fc.nat(), 8),
      raw: sometimes(rawBody, 6),
      query,
      contentType: contentType(type),
      authorization: authorization(realKey),
      origin: sometimes(fc.oneof(fc.constant('https://app.example.com'), headerText(30)), 4),
    })
    .map((parts) => {
      const members = membersOf(parts.fields, parts.extras);
      const body = parts.raw ?? (type === JSON_TYPE ? jsonText(members, parts.duplicate) : formText(members, parts.repeat));
      return request(
        kind,
        'POST',
        `${path}${parts.query}`,
        { 'Content-Type': parts.contentType, Authorization: parts.authorization, Origin: parts.origin },
        body,
      );
    });
}

function getRequest(kind: string, path: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({ query, authorization: authorization(false), accept: sometimes(headerText(30), 2) })
    .map((parts) => request(kind, 'GET', `${path}${parts.query}`, { Authorization: parts.authorization, Accept: parts.accept }, undefined));
}

const PUBLIC_PATHS = [SEND, TOKEN, INTROSPECT, REVOKE, JWKS, METADATA];
const unknownPath = fc.oneof(
  fc.constantFrom(
    '/',
    '/idp',
    '/idp/v1/otp',
    '/idp/v1/otp/send/',
    '/IDP/V1/OTP/SEND',
    '/idp//v1/otp/send',
    '/idp/v1/otp/send%00',
    '/idp/v1/otp/send%ED%A0%80',
    '/%ED%A0%80',
    '/idp/v1/account/userinfo',
    '/.well-known/',
    '/.well-known/openid-configuration',
    '/.well-known/jwks.json.bak',
    '/favicon.ico',
  ),
  fc.array(fc.stringMatching(/^[a-z0-9._~-]{1,12}$/), { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
);

const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  // otp/send twice as often: it has the most fields and the only side effect outside the table.
  { weight: 2, arbitrary: postRequest('send', SEND, JSON_TYPE, sendFields, false) },
  postRequest('token-json', TOKEN, JSON_TYPE, tokenFields, false),
  postRequest('token-form', TOKEN, FORM_TYPE, tokenFields, false),
  postRequest('introspect-json', INTROSPECT, JSON_TYPE, introspectFields, true),
  postRequest('introspect-form', INTROSPECT, FORM_TYPE, introspectFields, true),
  postRequest('revoke-json', REVOKE, JSON_TYPE, revokeFields, true),
  postRequest('revoke-form', REVOKE, FORM_TYPE, revokeFields, true),
  getRequest('jwks', JWKS),
  getRequest('metadata', METADATA),
  fc
    .record({ path: unknownPath, method: fc.constantFrom('GET', 'POST'), body: sometimes(rawBody, 2), query })
    .map((parts) => request('unknown-path', parts.method, `${parts.path}${parts.query}`, { 'Content-Type': JSON_TYPE }, parts.body)),
  fc
    .record({
      path: fc.constantFrom(...PUBLIC_PATHS),
      method: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'POST'),
      body: sendFields,
    })
    .map((parts) => {
      // The method each path does not take: POST routes get GET and the rest, GET routes get POST.
      const wrong = parts.path.startsWith('/.well-known/')
        ? parts.method === 'GET'
          ? 'POST'
          : parts.method
        : parts.method === 'POST'
          ? 'PUT'
          : parts.method;
      return request('wrong-method', wrong, parts.path, { 'Content-Type': JSON_TYPE }, JSON.stringify(parts.body));
    }),
);

// ---- Sending -----------------------------------------------------------------------------------

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly milliseconds: number;
}

function send(fuzz: FuzzRequest): Promise<Answer> {
  const started = performance.now();
  // Node's client frames a body of DELETE or OPTIONS only when told its length.
  const headers = fuzz.body === undefined ? fuzz.headers : { ...fuzz.headers, 'Content-Length': String(Buffer.byteLength(fuzz.body)) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${service.url}${fuzz.path}`, { method: fuzz.method, headers, agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          milliseconds: performance.now() - started,
        }),
      );
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(fuzz.body);
  });
}

// ---- The guard ---------------------------------------------------------------------------------

describe('fuzzing every public endpoint', () => {
  const statuses = new Map<number, number>();
  const kinds = new Map<string, number>();
  let sent = 0;
  let delivered = 0;
  let refusedWrites = 0;
  let takenWrites = 0;
  let namingVictims = 0;

  it(
    `answers ${RUNS} generated requests within the contracts (seed ${SEED})`,
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(fuzzRequest, async (fuzz) => {
          sent += 1;
          if (sent % CLOCK_STEP_EVERY === 0) service.clock.advanceSeconds(1);
          dynamodb.reset();
          ses.reset();
          const phoneBefore = phoneDeliveries;

          const answer = await send(fuzz);

          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          kinds.set(fuzz.kind, (kinds.get(fuzz.kind) ?? 0) + 1);
          if (namesVictim(fuzz)) namingVictims += 1;
          const attempted = dynamodb.exchanges().filter((exchange) => WRITES.has(exchange.operation));
          // A refused conditional write (a guess at a code with no try left, a limit refusing) is answered 400 and changes nothing.
          refusedWrites += attempted.filter((exchange) => exchange.status !== 200).length;
          const writes = attempted.filter((exchange) => exchange.status === 200 && changesState(exchange));
          if (answer.status < 300) takenWrites += writes.length;
          const deliveries = ses.exchanges().filter((exchange) => exchange.method === 'POST').length + (phoneDeliveries - phoneBefore);
          delivered += deliveries;

          expect(answer.status).toBeLessThan(500);
          expect(answer.milliseconds).toBeLessThan(RESPONSE_BOUND_MS);
          if (answer.status >= 400) {
            // HEAD answers carry no body, by HTTP's rules.
            if (fuzz.method !== 'HEAD') expect(errorShape(answer.text)).toBe('error JSON');
            expect(writes).toEqual([]);
            expect(deliveries).toBe(0);
          } else {
            expect(() => JSON.parse(answer.text) as unknown).not.toThrow();
            expect(deliveries).toBe(fuzz.kind === 'send' ? 1 : 0);
          }
        }),
        { numRuns: RUNS, seed: SEED, verbose: 1 },
      );
      expect(performance.now() - started).toBeLessThan(RUN_BOUND_MS);
    },
    RUN_BOUND_MS + 30_000,
  );

  it('reached every endpoint and every kind of answer (a generator that degenerates would not)', () => {
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    for (const kind of [
      'send',
      'token-json',
      'token-form',
      'introspect-json',
      'introspect-form',
      'revoke-json',
      'revoke-form',
      'jwks',
      'metadata',
      'unknown-path',
      'wrong-method',
    ]) {
      expect({ kind, enough: (kinds.get(kind) ?? 0) >= RUNS / 20 }).toEqual({ kind, enough: true });
    }
    expect(namingVictims).toBeGreaterThan(RUNS / 10);
    for (const status of [200, 400, 401, 404, 405, 413, 415, 429])
      expect({ status, seen: statuses.has(status) }).toEqual({ status, seen: true });
    // The recorders saw both kinds of write, so "no write took effect" is not true for want of seeing any.
    expect({ delivered: delivered > 0, refusedWrites: refusedWrites > 0, takenWrites: takenWrites > 0 }).toEqual({
      delivered: true,
      refusedWrites: true,
      takenWrites: true,
    });
  });

  it('left the victims able to exchange the codes they were sent before the fuzz', async () => {
    // Past any block and window the fuzz left the victims in.
    service.clock.advanceSeconds(LIMIT.windowSeconds + LIMIT.blockSeconds);
    for (const victim of victims) {
      // The victims' client is confidential: it authenticates at the token endpoint (RFC 6749 §3.2.1).
      const response = await service.post(
        TOKEN,
        {
          grant_type: 'authorization_code',
          code: victimCodes.get(victim),
          client_id: VICTIM_CLIENT,
          redirect_uri: REDIRECT_URI,
          user_id: victim,
        },
        // HTTP Basic names the client: a Bearer key alone names the first client holding it, and
        // the victims' client shares local-backend's.
        { headers: { Authorization: `Basic ${Buffer.from(`${VICTIM_CLIENT}:${LOCAL_API_KEY}`).toString('base64')}` } },
      );
      expect({ victim, status: response.status }).toEqual({ victim, status: 200 });
    }
  });
});

/** Whether the request's body names a victim, in JSON or form encoding, in any case. */
function namesVictim(fuzz: FuzzRequest): boolean {
  const body = typeof fuzz.body === 'string' ? fuzz.body.toLowerCase() : '';
  return victims.some(
    (victim) => body.includes(victim.toLowerCase()) || body.includes(new URLSearchParams({ v: victim }).toString().slice(2).toLowerCase()),
  );
}

/** 'error JSON' when `text` is exactly `{"error": string, "error_description": string}`, else what it is. */
function errorShape(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const keys = Object.keys(body).sort().join(',');
    if (keys === 'error,error_description' && typeof body.error === 'string' && typeof body.error_description === 'string')
      return 'error JSON';
    return `JSON with ${keys}`;
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set: run the tests with npm test`);
  return value;
}
