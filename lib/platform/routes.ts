/**
 * The API's routes and the functions behind them: one Lambda per route group, named by its file
 * in `functions/`. The CDK stack and the local runtime both build from these lists, so they cannot
 * disagree, and the stack derives each function's IAM policy from what is declared here (a test
 * checks the declarations against the DynamoDB requests each operation really makes).
 */

/**
 * How long an API function may run, in seconds: the CDK stack's timeout (infra/functions.ts) and
 * the local runtime's, so a request runs out of time locally exactly as on AWS. Why 20:
 * lib/platform/aws.ts (every call's bound) and infra/functions.ts.
 */
export const API_TIMEOUT_SECONDS = 20;

/**
 * DynamoDB actions on the table, as IAM names them (`dynamodb:<action>`). A TransactWriteItems
 * request has no action of its own: IAM authorises each of its writes by its own action. `Query`
 * is on the table's secondary index only (lib/adapters/dynamodb/table.ts `userIndex`): every
 * item is reached by its key, and only the index has more than one item per key.
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query';
/**
 * The service's secrets: the HMAC master key, the signing key set (private keys: the token
 * function only), and its public half (what the verifying functions read).
 */
export type SecretName = 'hmac' | 'signingKeys' | 'verificationKeys';
/** Queues a function may send to: the back-channel logout queue (`sqs:SendMessage`). */
export type QueueName = 'logout';
/** Delivery channels, each one IAM action: ses:SendEmail, sns:Publish, sms-voice:SendVoiceMessage. */
export type DeliveryAction = 'email' | 'sms' | 'voice';

export interface FunctionSpec {
  /** The file in functions/ (without extension) whose `handler` this Lambda runs. */
  readonly name: string;
  /** One line for the console and the docs. */
  readonly description: string;
  readonly table: readonly TableAction[];
  readonly secrets: readonly SecretName[];
  readonly delivery: readonly DeliveryAction[];
  /**
   * Queues it sends to: `logout`, the back-channel logout queue (infra/backchannel.ts), for the
   * functions that end sessions (lib/sessions/end-sessions.ts). Absent: none.
   */
  readonly queues?: readonly QueueName[];
}

export const FUNCTIONS = {
  'otp-send': {
    name: 'otp-send',
    description: 'POST /idp/v1/otp/send: send a one-time code',
    // The attempt, the SMS fraud guards' counters (send-guards.ts), the code and, when delivery
    // fails, putting back the last delivered code: all updates of one item each (code-store.ts).
    table: ['UpdateItem'],
    secrets: ['hmac'],
    delivery: ['email', 'sms', 'voice'],
  },
  token: {
    name: 'token',
    description: 'POST /idp/v1/account/token: exchange a code or a refresh token for tokens',
    // The attempt, the failure count, the guess that spends a try, a rotation and a family's
    // revocation (UpdateItem), an opaque token and a new refresh token family (PutItem, alone or
    // in a transaction), a private_key_jwt assertion's jti spent (PutItem), an authorization code
    // consumed (DeleteItem), a family read (GetItem).
    table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
    secrets: ['hmac', 'signingKeys'],
    delivery: [],
  },
  introspect: {
    name: 'introspect',
    description: 'POST /idp/v1/account/introspect: token introspection for resource servers',
    // An opaque token by its hash; JWTs are verified with public keys only; whether either was
    // revoked (its refresh token family's item, or a JWT's own revocation item).
    table: ['GetItem'],
    secrets: ['verificationKeys'],
    delivery: [],
  },
  revoke: {
    name: 'revoke',
    description: 'POST /idp/v1/account/revoke: token revocation (RFC 7009)',
    // A refresh token's family, or a JWT's jti in its family (UpdateItem), a JWT's jti without a
    // family and a private_key_jwt assertion's jti spent (PutItem), an opaque token (DeleteItem).
    // The HMAC key finds a refresh token's family; the public keys verify a JWT.
    table: ['UpdateItem', 'PutItem', 'DeleteItem'],
    secrets: ['hmac', 'verificationKeys'],
    delivery: [],
  },
  authorize: {
    name: 'authorize',
    description: 'GET|POST /idp/v1/account/authorize: the hosted login page (the OAuth authorization endpoint)',
    // The attempts, the SMS fraud guards' counters (send-guards.ts), the code, a wrong try and a
    // failure count, a session's use or renewal (UpdateItem), the authorization code and a new
    // session (PutItem), the browser's session (GetItem); a login in another account ends the
    // previous session as a logout does: the session (DeleteItem), its families (Query on the user
    // index, UpdateItem). The public keys check an id_token_hint. Passkeys: a credential read
    // (GetItem), the user's list (Query on the user index, then BatchGetItem), one created
    // (PutItem), one removed (DeleteItem); a sign-in's transaction with its authorization code
    // holds the sign count (UpdateItem), the spent challenge (PutItem) and the check that no
    // operator blocked the user (ConditionCheckItem).
    table: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem', 'Query'],
    secrets: ['hmac', 'verificationKeys'],
    delivery: ['email', 'sms', 'voice'],
    // Ending a session queues its relying parties' logout tokens (Back-Channel Logout 1.0).
    queues: ['logout'],
  },
  userinfo: {
    name: 'userinfo',
    description: 'GET|POST /idp/v1/account/userinfo: the claims an access token was granted (OpenID Connect)',
    // An opaque token by its hash, and whether a token was revoked, as introspection reads them.
    table: ['GetItem'],
    secrets: ['verificationKeys'],
    delivery: [],
  },
  logout: {
    name: 'logout',
    description: 'GET|POST /idp/v1/account/logout: the end-session endpoint (OpenID Connect RP-Initiated Logout)',
    // The browser's session (GetItem); ending it: the session (DeleteItem), its refresh token
    // families found on the user index (Query) and revoked (UpdateItem). The HMAC key finds the
    // session by its cookie and seals the confirmation; the public keys check an id_token_hint.
    table: ['GetItem', 'DeleteItem', 'Query', 'UpdateItem'],
    secrets: ['hmac', 'verificationKeys'],
    delivery: [],
    // Ending a session queues its relying parties' logout tokens (Back-Channel Logout 1.0).
    queues: ['logout'],
  },
  admin: {
    name: 'admin',
    description:
      'POST /idp/v1/admin/*: the operator controls (block, unblock, end sessions, remove passkeys) and test messages, IAM-authorised',
    // The block set on and lifted from a user's attempt counters, a refresh family revoked
    // (UpdateItem), a session ended, a passkey removed and a test recipient's kept message taken
    // (DeleteItem), the user's sessions, families and passkeys found (Query, on the user index).
    table: ['UpdateItem', 'DeleteItem', 'Query'],
    secrets: ['hmac'],
    delivery: [],
    // Ending a session queues its relying parties' logout tokens (Back-Channel Logout 1.0).
    queues: ['logout'],
  },
  'well-known': {
    name: 'well-known',
    description: 'GET /.well-known/*: the JWKS, the authorization server metadata and the OpenID configuration',
    table: [],
    secrets: ['verificationKeys'],
    delivery: [],
  },
} as const satisfies Record<string, FunctionSpec>;

export type FunctionName = keyof typeof FUNCTIONS;

export interface Route {
  /** API Gateway resource path. */
  readonly path: string;
  /** The methods the route answers; API Gateway sends every other method to the function too, which answers 405. */
  readonly methods: readonly string[];
  readonly functionName: FunctionName;
  /**
   * `iam`: only the deployment's IAM principals may call it (API Gateway AWS_IAM authorization,
   * SigV4-signed requests: infra/api.ts). Not part of the public API: no CORS, no preflight, not in
   * docs/openapi.json (docs/operations/operator-controls.md describes it). The local runtime serves
   * it on its loopback address without any IAM (`npm run admin` calls it there unsigned).
   * Absent: public, as every OAuth endpoint is by protocol.
   */
  readonly authorization?: 'iam';
}

/** Whether `route` is public: anyone may call it (its function authenticates clients itself). */
export const isPublic = (route: Route): boolean => route.authorization !== 'iam';

export const ROUTES: readonly Route[] = [
  { path: '/idp/v1/otp/send', methods: ['POST'], functionName: 'otp-send' },
  { path: '/idp/v1/account/token', methods: ['POST'], functionName: 'token' },
  { path: '/idp/v1/account/introspect', methods: ['POST'], functionName: 'introspect' },
  { path: '/idp/v1/account/revoke', methods: ['POST'], functionName: 'revoke' },
  { path: '/idp/v1/account/authorize', methods: ['GET', 'POST'], functionName: 'authorize' },
  { path: '/idp/v1/account/userinfo', methods: ['GET', 'POST'], functionName: 'userinfo' },
  { path: '/idp/v1/account/logout', methods: ['GET', 'POST'], functionName: 'logout' },
  { path: '/.well-known/jwks.json', methods: ['GET'], functionName: 'well-known' },
  { path: '/.well-known/oauth-authorization-server', methods: ['GET'], functionName: 'well-known' },
  { path: '/.well-known/openid-configuration', methods: ['GET'], functionName: 'well-known' },
  { path: '/idp/v1/admin/users/block', methods: ['POST'], functionName: 'admin', authorization: 'iam' },
  { path: '/idp/v1/admin/users/unblock', methods: ['POST'], functionName: 'admin', authorization: 'iam' },
  { path: '/idp/v1/admin/users/end-sessions', methods: ['POST'], functionName: 'admin', authorization: 'iam' },
  { path: '/idp/v1/admin/users/remove-passkeys', methods: ['POST'], functionName: 'admin', authorization: 'iam' },
  // The message kept for a stage's test recipient, taken (read once) by `npm run smoke` (lib/otp/test-outbox.ts).
  { path: '/idp/v1/admin/test-messages/take', methods: ['POST'], functionName: 'admin', authorization: 'iam' },
];

/** The public routes: the API's contract (docs/openapi.json), CORS and the WAF's rate limits are theirs. */
export const PUBLIC_ROUTES: readonly Route[] = ROUTES.filter(isPublic);
