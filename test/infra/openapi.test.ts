/**
 * docs/openapi.json: current (regenerated in memory and compared), accepted by a strict OpenAPI
 * 3.1 validator, and complete: every route and method of lib/platform/routes.ts, every error the service
 * can throw at its status, every answer API Gateway gives of its own. The typed client's types
 * (client/schema.ts) are current too.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { GATEWAY_RESPONSES } from '../../infra/api';
import { apiGatewayDocumentation } from '../../infra/openapi/api-gateway-documentation';
import { OPENAPI_FILE, openApiDocument, openApiJson, packageVersion } from '../../infra/openapi/document';
import { PROJECT_ROOT } from '../../infra/bundling';
import { OPERATIONS } from '../../infra/openapi/operations';
import {
  DeliveryFailedError,
  DestinationNotAllowedError,
  type IdpError,
  InsufficientScopeError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTokenError,
  MethodNotAllowedError,
  NotFoundError,
  RequestTooLargeError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnauthorizedClientError,
  UnsupportedGrantTypeError,
  UnsupportedMediaTypeError,
} from '../../lib/platform/errors';
import { PUBLIC_ROUTES, ROUTES } from '../../lib/platform/routes';

type Json = Record<string, unknown>;
interface Response {
  readonly $ref?: string;
  readonly headers?: Record<string, Json>;
  readonly content?: Record<string, { schema: { properties?: { error?: { enum?: string[] } } } }>;
}
interface Operation {
  readonly responses: Record<string, Response>;
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { responses: Record<string, Response>; schemas: Record<string, Json> };
  readonly 'x-unlisted-methods': { responses: Record<string, Response> };
  readonly 'x-unknown-path': { responses: Record<string, Response> };
}

const TSX = join(PROJECT_ROOT, 'node_modules/tsx/dist/cli.mjs');
const committed = readFileSync(OPENAPI_FILE, 'utf8');
const document = JSON.parse(committed) as Document;

const resolve = (response: Response): Response =>
  response.$ref === undefined ? response : (document.components.responses[response.$ref.split('/').pop() as string] as Response);
const codesAt = (operation: Operation, status: number): string[] => {
  const response = operation.responses[String(status)];
  return response === undefined ? [] : (resolve(response).content?.['application/json']?.schema.properties?.error?.enum ?? []);
};
const operations = (): Array<[string, string, Operation]> =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, string, Operation] => [path, method, op]),
  );

it('is current: regenerate with npm run openapi when a route, a schema or an error changes', () => {
  expect(committed).toBe(openApiJson(packageVersion()));
});

it("the typed client's types are current (client/schema.ts, npm run openapi): checked in a process of its own", () => {
  const check = spawnSync(process.execPath, [TSX, 'infra/openapi/generate.ts', '--check'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect({ status: check.status, stderr: check.stderr.trim() }).toEqual({ status: 0, stderr: '' });
});

it('is valid OpenAPI 3.1 to a strict validator (@readme/openapi-parser), which refuses a broken copy', async () => {
  const result = await validate(structuredClone(document) as never);
  expect(result).toEqual({ valid: true, warnings: [], specification: 'OpenAPI' });

  const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, Json>> };
  delete (broken.paths['/idp/v1/otp/send']?.post?.responses as Record<string, Json>)['200']?.description;
  expect((await validate(broken as never)).valid).toBe(false);
});

it('describes every public route of lib/platform/routes.ts with exactly its methods, plus the CORS preflight, and no IAM-only admin route', () => {
  expect(Object.keys(document.paths).sort()).toEqual(PUBLIC_ROUTES.map((route) => route.path).sort());
  expect(ROUTES.filter((route) => !PUBLIC_ROUTES.includes(route)).map((route) => route.path)).toEqual([
    '/idp/v1/admin/users/block',
    '/idp/v1/admin/users/unblock',
    '/idp/v1/admin/users/end-sessions',
    '/idp/v1/admin/users/remove-passkeys',
    '/idp/v1/admin/test-messages/take',
  ]);
  for (const route of PUBLIC_ROUTES) {
    expect(Object.keys(document.paths[route.path] ?? {}).sort()).toEqual([...route.methods.map((m) => m.toLowerCase()), 'options'].sort());
  }
  // One operation per route and method (9 paths, 11 operations today).
  expect(OPERATIONS).toHaveLength(PUBLIC_ROUTES.flatMap((route) => route.methods).length);
});

it('lists at its status every error the service can throw, on the operations that throw it', () => {
  const thrown: Array<[IdpError, string[]]> = [
    [new InvalidRequestError('x'), ['*']],
    [new RequestTooLargeError('x'), ['/idp/v1/otp/send', '/idp/v1/account/token', '/idp/v1/account/introspect', '/idp/v1/account/revoke']],
    [
      new UnsupportedMediaTypeError('x'),
      ['/idp/v1/otp/send', '/idp/v1/account/token', '/idp/v1/account/introspect', '/idp/v1/account/revoke'],
    ],
    [new InvalidClientError(), ['/idp/v1/otp/send', '/idp/v1/account/token', '/idp/v1/account/introspect', '/idp/v1/account/revoke']],
    [new InvalidTokenError('x', { bearerPresented: true }), ['/idp/v1/otp/send', '/idp/v1/account/introspect', '/idp/v1/account/userinfo']],
    [new InsufficientScopeError('openid'), ['/idp/v1/account/userinfo']],
    [new InvalidGrantError(), ['/idp/v1/account/token']],
    [new InvalidGrantError({ presented: 'refresh_token' }), ['/idp/v1/account/token']],
    [new InvalidScopeError(), ['/idp/v1/account/token']],
    [new UnauthorizedClientError('x'), ['/idp/v1/otp/send', '/idp/v1/account/token']],
    [new UnsupportedGrantTypeError(), ['/idp/v1/account/token']],
    [new TooManyRequestsError(1), ['/idp/v1/otp/send', '/idp/v1/account/token']],
    [new TooManyRequestsError(1, { limit: 'phone_sends' }), ['/idp/v1/otp/send']],
    [new DestinationNotAllowedError(), ['/idp/v1/otp/send']],
    [new DeliveryFailedError(), ['/idp/v1/otp/send']],
    [new TemporarilyUnavailableError(), ['*']],
    [new TemporarilyUnavailableError({ phoneBudgetSpent: { retryAfterSeconds: 3600 } }), ['/idp/v1/otp/send']],
  ];
  for (const [error, paths] of thrown) {
    for (const [path, method, operation] of operations()) {
      if (method === 'options' || (paths[0] !== '*' && !paths.includes(path))) continue;
      if (method === 'get' && (error instanceof RequestTooLargeError || error instanceof UnsupportedMediaTypeError)) continue;
      expect([path, method, codesAt(operation, error.statusCode)]).toEqual([path, method, expect.arrayContaining([error.error])]);
    }
  }
  // 405 and 404 are answered outside operations: a method a path does not take, a path the API does not have.
  expect(codesAt(document['x-unlisted-methods'], new MethodNotAllowedError(['POST']).statusCode)).toEqual(['method_not_allowed']);
  expect(codesAt(document['x-unknown-path'], new NotFoundError('x').statusCode)).toEqual(['not_found']);
});

it("lists API Gateway's own answers (infra/api.ts GATEWAY_RESPONSES) on every operation, with their headers", () => {
  for (const response of GATEWAY_RESPONSES) {
    if (response.status === undefined) continue;
    const status = Number(response.status);
    const places: Operation[] = status === 404 ? [document['x-unknown-path']] : operations().map(([, , operation]) => operation);
    for (const place of places) {
      expect(codesAt(place, status)).toContain(response.error);
      for (const name of Object.keys(response.headers ?? {}))
        expect(resolve(place.responses[String(status)] as Response).headers).toHaveProperty([name]);
    }
  }
  // The default 5xx keeps the status API Gateway gives it.
  for (const [, , operation] of operations())
    for (const status of [500, 502, 504]) expect(codesAt(operation, status)).toContain('server_error');
});

it('says which headers an answer always has: Retry-After on 429 and 503, WWW-Authenticate on 401, Allow on 405, Location on 302', () => {
  const required = (response: Response | undefined, name: string) => {
    const header = resolve(response as Response).headers?.[name] as { $ref?: string; required?: boolean } | undefined;
    return header?.$ref !== undefined || header?.required === true;
  };
  for (const [path, method, operation] of operations()) {
    expect([path, method, required(operation.responses['429'], 'Retry-After')]).toEqual([path, method, true]);
    expect([path, method, required(operation.responses['503'], 'Retry-After')]).toEqual([path, method, true]);
    if (operation.responses['401'] !== undefined) expect(required(operation.responses['401'], 'WWW-Authenticate')).toBe(true);
    if (operation.responses['302'] !== undefined) expect(required(operation.responses['302'], 'Location')).toBe(true);
  }
  expect(required(document['x-unlisted-methods'].responses['405'], 'Allow')).toBe(true);
});

it('describes the bodies from the handlers’ own schemas: a field added there appears here', () => {
  const generated = openApiDocument(packageVersion()) as unknown as Document;
  const send = generated.components.schemas.SendRequest as { properties: Record<string, unknown>; required: string[] };
  expect(Object.keys(send.properties)).toEqual([
    'auth_type',
    'client_id',
    'redirect_uri',
    'user_id',
    'locale',
    'message',
    'method',
    'code_challenge',
    'code_challenge_method',
  ]);
  expect(send.required).toEqual(['auth_type', 'client_id', 'redirect_uri', 'user_id']);
});

it('converts into API Gateway documentation parts (docs/deploy.md): the API, each route’s ANY method, every response it lists', () => {
  const imported = apiGatewayDocumentation(document as unknown as Record<string, unknown>) as {
    openapi: string;
    'x-amazon-apigateway-documentation': {
      version: string;
      documentationParts: Array<{ location: Record<string, string>; properties: Record<string, string> }>;
    };
  };
  // API Gateway imports OpenAPI 3.0, not 3.1.
  expect(imported.openapi).toBe('3.0.1');
  const parts = imported['x-amazon-apigateway-documentation'].documentationParts;
  expect(parts.filter((part) => part.location.type === 'API')).toHaveLength(1);
  for (const [path, method, operation] of operations()) {
    if (method === 'options') continue;
    expect(parts).toContainEqual(expect.objectContaining({ location: { type: 'METHOD', path, method: 'ANY' } }));
    for (const statusCode of Object.keys(operation.responses)) {
      const part = parts.find(
        (candidate) =>
          candidate.location.type === 'RESPONSE' && candidate.location.path === path && candidate.location.statusCode === statusCode,
      );
      expect(part?.properties.description).not.toBe('');
    }
  }
  // Every text is a non-empty string (API Gateway keeps properties as JSON).
  for (const part of parts) for (const value of Object.values(part.properties)) expect(value).toMatch(/\S/);
});
