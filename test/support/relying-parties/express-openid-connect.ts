/**
 * A server-rendered Express app signed in by express-openid-connect (Auth0's middleware), with the
 * configuration its README gives a web app that calls APIs: the authorization code flow
 * (`response_type: 'code'`; the library's default is the implicit `id_token`, for apps that only
 * log users in), authenticated by `client_secret_basic` (its default for a client with a secret),
 * its default scope (`openid profile email`) and `idpLogout` off (its default), or on: then the
 * library's own `/logout` route (`res.oidc.logout()`) ends the app's session and sends the browser
 * to the issuer's `end_session_endpoint` with the ID token as `id_token_hint` and the app's base
 * URL as `post_logout_redirect_uri` (no `state`: the library sends none). docs/connect.md shows
 * the same lines.
 *
 * `/` requires a login (`authRequired`, the default) and shows the library's view of the user:
 * `req.oidc.user` (the ID token's claims) and `req.oidc.fetchUserInfo()`. `/refresh` refreshes
 * the access token as the README's "obtaining access tokens" example does, then reads UserInfo
 * with the new one. Neither shows a token.
 */
import express, { type ErrorRequestHandler } from 'express';
import { auth } from 'express-openid-connect';

export interface ExpressOpenidConnectOptions {
  readonly issuer: string;
  /** The app's origin: its redirect URI is `${origin}/callback`. */
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Encrypts the app's session cookie (the library's `secret`). */
  readonly cookieSecret: string;
  /** Whether `/logout` also logs the user out at the issuer (RP-Initiated Logout). Default: off, the library's default. */
  readonly idpLogout?: boolean;
}

export function expressOpenidConnectApp(options: ExpressOpenidConnectOptions): express.Express {
  const app = express();
  app.use(
    auth({
      issuerBaseURL: options.issuer,
      baseURL: options.origin,
      clientID: options.clientId,
      clientSecret: options.clientSecret,
      secret: options.cookieSecret,
      authorizationParams: { response_type: 'code' },
      ...(options.idpLogout === true ? { idpLogout: true } : {}),
    }),
  );
  app.get('/', async (request, response) => {
    response.json({ user: request.oidc.user, userinfo: await request.oidc.fetchUserInfo() });
  });
  app.get('/refresh', async (request, response) => {
    const before = request.oidc.accessToken;
    const after = await before?.refresh();
    response.json({
      newAccessToken: after !== undefined && after.access_token !== before?.access_token,
      expiresIn: after?.expires_in,
      userinfo: await request.oidc.fetchUserInfo(),
    });
  });
  app.use(showError);
  return app;
}

/** The library's error as JSON, so a failing test says what the library said (never a stack). */
export const showError: ErrorRequestHandler = (error: unknown, _request, response, _next) => {
  const { name, message, code } = error as { name?: string; message?: string; code?: string };
  response.status(500).json({ error: name, message, code });
};
