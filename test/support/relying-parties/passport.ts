/**
 * An Express app signed in by Passport with openid-client's strategy (`openid-client/passport`),
 * as openid-client's passport example configures it: `client.discovery(issuer, id, secret)`
 * (a secret string: `client_secret_post`), scope `openid email`, sessions by express-session, and
 * the user a verify function makes from the tokens. Two settings beyond the example: the
 * `callbackURL` (without it no `redirect_uri` is sent, which OIDC Core §3.1.2.1 requires) and,
 * for a local http:// issuer only, `allowInsecureRequests` (openid-client refuses plain HTTP
 * otherwise; an https issuer needs nothing). docs/connect.md shows the same lines.
 *
 * The verify function reads UserInfo with the access token (`client.fetchUserInfo`, which checks
 * that its `sub` is the ID token's), so `req.user` is the ID token's `sub` with UserInfo's email.
 */
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import * as client from 'openid-client';
import { Strategy, type VerifyFunction } from 'openid-client/passport';
import { showError } from './express-openid-connect';

export interface PassportOptions {
  readonly issuer: string;
  /** The app's origin: its redirect URI is `${origin}/login/callback`. */
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Signs the session cookie (express-session's `secret`). */
  readonly sessionSecret: string;
}

interface SignedInUser {
  readonly sub: string;
  readonly email: unknown;
}

export async function passportApp(options: PassportOptions): Promise<express.Express> {
  const config = await client.discovery(new URL(options.issuer), options.clientId, options.clientSecret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const verify: VerifyFunction = (tokens, verified) => {
    const sub = tokens.claims()?.sub ?? '';
    void client.fetchUserInfo(config, tokens.access_token, sub).then(
      (userinfo) => {
        verified(null, { sub, email: userinfo.email } satisfies SignedInUser);
      },
      (error: unknown) => {
        verified(error);
      },
    );
  };
  const strategy = new Strategy({ config, scope: 'openid email', callbackURL: `${options.origin}/login/callback` }, verify);
  passport.use(strategy);
  passport.serializeUser((user, done) => done(null, user));
  passport.deserializeUser((user: SignedInUser, done) => done(null, user));

  const app = express();
  app.use(session({ secret: options.sessionSecret, resave: false, saveUninitialized: false }));
  app.use(passport.authenticate('session'));
  // @types/passport types the middleware `any`: it is Express's.
  app.get('/login', passport.authenticate(strategy.name) as express.RequestHandler);
  app.get('/login/callback', passport.authenticate(strategy.name, { successRedirect: '/' }) as express.RequestHandler);
  app.get('/', (request, response) => {
    if (request.user === undefined) return response.redirect('/login');
    return response.json({ user: request.user });
  });
  app.use(showError);
  return app;
}
