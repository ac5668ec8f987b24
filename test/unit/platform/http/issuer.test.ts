/**
 * The issuer URL (`iss`, the base of the metadata documents): the configured one without its
 * trailing slashes (RFC 8414 §2 and OIDC Discovery §3 compare issuers as exact strings, so one
 * issuer must have one spelling), otherwise derived from the request.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { issuerOf } from '../../../../lib/platform/http/issuer';
import { apiEvent } from '../../../support/api-event';

function eventFrom(requestContext: { apiId: string; domainName?: string; stage?: string }): APIGatewayProxyEvent {
  return apiEvent({ requestContext: { requestId: 'unit', ...requestContext } as APIGatewayProxyEvent['requestContext'] });
}

const DEPLOYED = eventFrom({ apiId: 'a1b2c3d4e5', domainName: 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com', stage: 'prod' });
const LOCAL = eventFrom({ apiId: 'local', domainName: 'localhost:3000', stage: 'local' });

describe('issuerOf', () => {
  it.each([
    ['https://id.example.com', 'https://id.example.com'],
    ['https://id.example.com/', 'https://id.example.com'],
    ['https://id.example.com///', 'https://id.example.com'],
    // Only the trailing slashes: a path's own slashes are part of the issuer.
    ['https://api.example.com/stage/idp/', 'https://api.example.com/stage/idp'],
  ])('uses the configured issuer %j as %j, whatever the request', (configured, issuer) => {
    expect(issuerOf(configured, DEPLOYED)).toBe(issuer);
    expect(issuerOf(configured, LOCAL)).toBe(issuer);
  });

  it("derives the local runtime's origin over http, localhost when the request names no host", () => {
    expect(issuerOf(undefined, LOCAL)).toBe('http://localhost:3000');
    expect(issuerOf(undefined, eventFrom({ apiId: 'local' }))).toBe('http://localhost');
  });

  it("derives a deployed API's stage URL over https from API Gateway's domain and stage", () => {
    expect(issuerOf(undefined, DEPLOYED)).toBe('https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod');
  });
});
