/**
 * Every response of the API a test receives is checked against docs/openapi.json
 * (test/support/contract.ts), and a test that received one the document does not describe fails
 * (after it, with each departure named). The local API server of the harness reports every
 * response it writes (local/api-server.ts `onResponse`); the end-to-end test reports what its
 * typed client receives (`contractMiddleware`).
 *
 * CONTRACT_REPORT=<file> appends, per test file, how many responses were checked.
 */
import { appendFileSync } from 'node:fs';
import type { Middleware } from 'openapi-fetch';
import { responseContract, type ObservedResponse } from './contract';

const violations: string[] = [];
let checked = 0;

/** Checks one response; a departure is reported after the running test. */
export function checkResponse(observed: ObservedResponse): void {
  checked += 1;
  try {
    violations.push(...responseContract().check(observed));
  } catch (error) {
    // The server calls this after answering: a checker that fails must fail the test, not vanish.
    violations.push(`${observed.method} ${observed.path} → ${observed.status}: the checker failed: ${String(error)}`);
  }
}

/** For an openapi-fetch client: checks every response it receives. */
export const contractMiddleware: Middleware = {
  async onResponse({ request, response }) {
    checkResponse({
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.clone().text(),
    });
    return undefined;
  },
};

/** `fetch`, checking the response (for a test that talks to a service in another process, as the end-to-end test does). */
export async function checkedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  checkResponse({
    method: init?.method ?? 'GET',
    path: new URL(input).pathname,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.clone().text(),
  });
  return response;
}

/** How many responses this test file has checked so far. */
export function checkedResponses(): number {
  return checked;
}

afterEach(() => {
  expect(violations.splice(0)).toEqual([]);
});

afterAll(() => {
  const report = process.env.CONTRACT_REPORT;
  if (report !== undefined && report !== '') appendFileSync(report, `${expect.getState().testPath ?? '?'}\t${checked}\n`);
  // Responses after the last test (an afterAll's requests) are checked too.
  expect(violations.splice(0)).toEqual([]);
});
