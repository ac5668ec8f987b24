/**
 * The hosted login page driven over HTTP as a browser without JavaScript would: GET the
 * authorization URL, keep the transaction cookie, read the CSRF token from the form, post the
 * forms, and stop at the redirect to the client. For tests of the endpoint's rules; a real
 * browser drives it in test/browser/.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { fetchFrom, REDIRECT_URI, type TestService } from './harness';
import { rememberSecret } from './log-capture';
import type { SoftAuthenticator, SoftAuthenticatorKnobs } from './soft-authenticator';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';

export const AUTHORIZE_PATH = '/idp/v1/account/authorize';

export interface PageResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
  /** The redirect's target, for a 302. */
  readonly location: URL | undefined;
}

/**
 * Exchanges a page's authorization code at the token endpoint, as `session`'s client with its PKCE
 * verifier, expecting 200 (every token remembered as a secret); returns the ID token's claims,
 * verified with `jwks` for that client, and the refresh token.
 */
export async function exchangeForIdToken(
  service: Pick<TestService, 'postForm'>,
  jwks: { keys: JWK[] },
  session: LoginSession,
  code: string,
): Promise<{ claims: JWTPayload; refreshToken: unknown }> {
  const exchanged = await service.postForm('/idp/v1/account/token', {
    grant_type: 'authorization_code',
    code,
    client_id: session.clientId,
    redirect_uri: REDIRECT_URI,
    code_verifier: session.verifier,
  });
  expect(exchanged.status).toBe(200);
  for (const token of [exchanged.body.access_token, exchanged.body.id_token, exchanged.body.refresh_token]) {
    if (typeof token === 'string') rememberSecret(token);
  }
  const { payload } = await jwtVerify(exchanged.body.id_token as string, createLocalJWKSet(jwks), { audience: session.clientId });
  return { claims: payload, refreshToken: exchanged.body.refresh_token };
}

/** A PKCE pair (RFC 7636 §4.1–4.2). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * One browser's session with the page: its cookie jar holds the transaction cookie, and the
 * single sign-on session cookies (`idp_sso_<environment>`) in `sessionCookies`, which several
 * LoginSessions share when they are one browser (`options.sessionCookies`: two clients' logins
 * in the same browser).
 */
export class LoginSession {
  private cookie: string | undefined;
  readonly verifier: string;
  readonly challenge: string;
  /** The browser's session cookies by name. */
  readonly sessionCookies: Map<string, string>;
  /**
   * @param options.from the local address the browser connects from (the source IP the page's
   *   sends are counted by, as API Gateway's `sourceIp`); default 127.0.0.1.
   * @param options.sessionCookies another LoginSession's `sessionCookies`: the same browser.
   */
  constructor(
    private readonly service: Pick<TestService, 'url' | 'latestCode'>,
    readonly clientId = 'local-web',
    private readonly options: { readonly from?: string; readonly sessionCookies?: Map<string, string> } = {},
  ) {
    ({ verifier: this.verifier, challenge: this.challenge } = pkce());
    this.sessionCookies = options.sessionCookies ?? new Map();
  }

  /** The standard authorization request, with `extra` added (or removed when undefined). */
  authorizationUrl(extra: Record<string, string | undefined> = {}): string {
    const parameters: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: this.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email phone',
      state: 'state-123',
      nonce: 'nonce-456',
      code_challenge: this.challenge,
      code_challenge_method: 'S256',
      ...extra,
    };
    const query = new URLSearchParams(Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return `${this.service.url}${AUTHORIZE_PATH}?${query.toString()}`;
  }

  async start(extra: Record<string, string | undefined> = {}, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request(this.authorizationUrl(extra), { headers });
  }

  /**
   * Posts the page's form with `action` and `fields`, with the CSRF token of `page` unless given,
   * as a browser would: only a form the page has, with a submit button for `action` and an input
   * for each field, whose method and target are the endpoint's (so a test drives the page as it is
   * rendered, not the endpoint around it). `offered: false` posts what the page does not offer
   * (a stale page, a forged post); `csrf: false` leaves the CSRF field out altogether (a forged
   * post that does not even try); `headers` are added to the request's.
   */
  async post(
    page: PageResponse,
    action: string,
    fields: Record<string, string> = {},
    {
      offered = true,
      csrf = true,
      headers = {},
    }: { readonly offered?: boolean; readonly csrf?: boolean; readonly headers?: Record<string, string> } = {},
  ): Promise<PageResponse> {
    if (offered) requireOffered(page.html, action, Object.keys(fields));
    const body = new URLSearchParams({ ...(csrf ? { csrf: csrfOf(page.html) } : {}), action, ...fields });
    return this.request(`${this.service.url}${AUTHORIZE_PATH}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }

  /** The whole page flow for `userId`: start, send, read the code, verify. Returns the redirect. */
  async signIn(userId: string, extra: Record<string, string | undefined> = {}): Promise<PageResponse> {
    const first = await this.start(extra);
    const second = await this.post(first, 'send', { user_id: userId });
    if (second.status !== 200) throw new Error(`send answered ${second.status}`);
    return this.post(second, 'verify', { code: await this.service.latestCode(userId) });
  }

  /**
   * Signs in with a passkey from a page with a passkey sign-in (`#passkey-form`), as the page's
   * script does: the authenticator answers the form's request options, and the form is posted
   * with the assertion in `credential`. `credential` replaces the assertion (a replayed one).
   */
  async signInWithPasskey(
    page: PageResponse,
    authenticator: SoftAuthenticator,
    knobs: SoftAuthenticatorKnobs & { readonly credential?: string } = {},
  ): Promise<PageResponse> {
    const { credential, ...rest } = knobs;
    const options = formOptionsOf(page.html, 'passkey-form') as PublicKeyCredentialRequestOptionsJSON;
    return this.submit(page, 'passkey-form', { credential: credential ?? JSON.stringify(authenticator.authenticate(options, rest)) });
  }

  /** Creates a passkey on the passkeys page (`#passkey-register-form`), as the page's script does. */
  async createPasskey(page: PageResponse, authenticator: SoftAuthenticator, knobs: SoftAuthenticatorKnobs = {}): Promise<PageResponse> {
    const options = formOptionsOf(page.html, 'passkey-register-form') as PublicKeyCredentialCreationOptionsJSON;
    return this.submit(page, 'passkey-register-form', { credential: JSON.stringify(authenticator.register(options, knobs)) });
  }

  /** Removes a passkey on the passkeys page: the remove form whose `passkey` is `credentialId`. */
  async removePasskey(page: PageResponse, credentialId: string): Promise<PageResponse> {
    const form = formsOf(page.html).find((candidate) => candidate.values.passkey === credentialId);
    if (form === undefined) throw new Error(`the page offers no remove form for ${credentialId}`);
    return this.send(form, {});
  }

  /**
   * Posts the form `id` of `page` with its own fields' values (hidden ones included, and the
   * action its submit button or hidden field names) and `fields` over them; `added`: fields the
   * page's script adds to the form (the registration's `failure`).
   */
  async submit(page: PageResponse, id: string, fields: Record<string, string>, added: Record<string, string> = {}): Promise<PageResponse> {
    const form = formsOf(page.html).find((candidate) => candidate.id === id);
    if (form === undefined) throw new Error(`the page has no form #${id}`);
    const missing = Object.keys(fields).filter((field) => !(field in form.values));
    if (missing.length > 0) throw new Error(`the form #${id} has no input for ${missing.join(', ')}`);
    return this.send(form, { ...fields, ...added });
  }

  private async send(form: PageForm, fields: Record<string, string>): Promise<PageResponse> {
    if (form.method?.toLowerCase() !== 'post' || new URL(form.target ?? '', `http://page${AUTHORIZE_PATH}`).pathname !== AUTHORIZE_PATH) {
      throw new Error(`the form #${form.id} does not post to the endpoint`);
    }
    const body = new URLSearchParams({ ...form.values, ...fields });
    return this.request(`${this.service.url}${AUTHORIZE_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }

  /**
   * The same browser going on against another service (another deployment of the stack over the
   * same table and secrets): a session there whose jar holds this one's transaction cookie.
   */
  continuedAt(service: Pick<TestService, 'url' | 'latestCode'>): LoginSession {
    const continued = new LoginSession(service, this.clientId, this.options);
    continued.cookie = this.cookie;
    return continued;
  }

  /** The transaction cookie as the jar holds it (for tampering tests). */
  get transactionCookie(): string | undefined {
    return this.cookie;
  }

  set transactionCookie(value: string | undefined) {
    this.cookie = value;
  }

  private async request(url: string, init: RequestInit): Promise<PageResponse> {
    const cookies = [
      ...(this.cookie === undefined ? [] : [`idp_login=${this.cookie}`]),
      ...[...this.sessionCookies].map(([name, value]) => `${name}=${value}`),
    ];
    const headers = {
      ...(init.headers as Record<string, string>),
      ...(cookies.length === 0 ? {} : { Cookie: cookies.join('; ') }),
    };
    const response =
      this.options.from === undefined
        ? await fetch(url, { ...init, redirect: 'manual', headers })
        : await fetchFrom(url, this.options.from, { method: init.method ?? 'GET', headers, body: init.body as string | undefined });
    for (const setCookie of response.headers.getSetCookie()) {
      const [, name = '', value = ''] = /^([^=]*)=([^;]*)/.exec(setCookie) ?? [];
      const gone = /Max-Age=0/.test(setCookie) || value === '';
      if (name === 'idp_login') this.cookie = gone ? undefined : value;
      else if (gone) this.sessionCookies.delete(name);
      else this.sessionCookies.set(name, value);
    }
    const location = response.headers.get('location');
    const html = await response.text();
    if (location !== null) {
      const code = new URL(location).searchParams.get('code');
      if (code !== null) rememberSecret(code);
    }
    return { status: response.status, headers: response.headers, html, location: location === null ? undefined : new URL(location) };
  }
}

/** A form of a page: its id, method, target, `data-options`, and the value each of its fields posts. */
export interface PageForm {
  readonly id: string | undefined;
  readonly method: string | undefined;
  readonly target: string | undefined;
  /** The unescaped `data-options` attribute (the WebAuthn options JSON the page script uses). */
  readonly options: string | undefined;
  /** Every named input's value, and the action of its submit button or hidden `action` field. */
  readonly values: Record<string, string>;
}

/** The forms of a page. */
export function formsOf(html: string): PageForm[] {
  return Array.from(html.matchAll(/<form ([^>]*)>([\s\S]*?)<\/form>/g), ([, attributes = '', inner = '']) => {
    const values: Record<string, string> = {};
    for (const [input = ''] of inner.matchAll(/<input [^>]*>/g)) {
      const name = attributeOf(input, 'name');
      if (name !== undefined) values[name] = attributeOf(input, 'value') ?? '';
    }
    const button = /<button [^>]*\btype="submit"[^>]*\bname="action"[^>]*\bvalue="([^"]*)"/.exec(inner)?.[1];
    if (button !== undefined && values.action === undefined) values.action = unescapeHtml(button);
    return {
      id: attributeOf(attributes, 'id'),
      method: attributeOf(attributes, 'method'),
      target: attributeOf(attributes, 'action'),
      options: attributeOf(attributes, 'data-options'),
      values,
    };
  });
}

/** Whether a form of the page has a submit button (or a hidden field) for `action`. */
export function offersAction(html: string, action: string): boolean {
  return formFor(html, action) !== undefined;
}

/** The parsed `data-options` of the form `id` (the WebAuthn options the page's script passes to the browser). */
export function formOptionsOf(html: string, id: string): unknown {
  const options = formsOf(html).find((form) => form.id === id)?.options;
  if (options === undefined) throw new Error(`the page has no form #${id} with options`);
  return JSON.parse(options) as unknown;
}

function attributeOf(tag: string, name: string): string | undefined {
  const value = new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(tag)?.[1];
  return value === undefined ? undefined : unescapeHtml(value);
}

function unescapeHtml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_entity, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '',
  );
}

/** The form of `html` with a submit button (or a hidden field) for `action`: its method, where it posts and the names of its inputs. */
function formFor(html: string, action: string): { method?: string; target?: string; inputs: string[] } | undefined {
  for (const [, attributes = '', inner = ''] of html.matchAll(/<form ([^>]*)>([\s\S]*?)<\/form>/g)) {
    // A submit button for the action (its other attributes after these), or the action as a hidden field.
    const button = new RegExp(`<button type="submit" name="action" value="${action}"[ >]`);
    if (!button.test(inner) && !inner.includes(`<input type="hidden" name="action" value="${action}">`)) continue;
    return {
      method: /\bmethod="([^"]*)"/.exec(attributes)?.[1],
      target: /\baction="([^"]*)"/.exec(attributes)?.[1],
      inputs: [...inner.matchAll(/<input [^>]*\bname="([^"]+)"/g)].map((match) => match[1] ?? ''),
    };
  }
  return undefined;
}

function requireOffered(html: string, action: string, fields: readonly string[]): void {
  const form = formFor(html, action);
  if (form === undefined) throw new Error(`the page offers no "${action}" button`);
  // A relative target resolves against the page's own address, the endpoint's (RFC 3986 §5.2).
  const posts =
    form.method?.toLowerCase() === 'post' && new URL(form.target ?? '', `http://page${AUTHORIZE_PATH}`).pathname === AUTHORIZE_PATH;
  if (!posts) throw new Error(`the "${action}" form does not post to the endpoint (method ${form.method}, action ${form.target})`);
  const missing = ['csrf', ...fields].filter((field) => !form.inputs.includes(field));
  if (missing.length > 0) throw new Error(`the "${action}" form has no input for ${missing.join(', ')}`);
}

/** The CSRF token of a page's form. */
export function csrfOf(html: string): string {
  const token = /name="csrf" value="([^"]*)"/.exec(html)?.[1];
  if (token === undefined) throw new Error('the page has no CSRF token');
  return token;
}
