/**
 * The hosted login page's one script: passkeys (WebAuthn Level 3), as an enhancement of forms that
 * work without it. Browser code: `npm run page-script` (infra/page-script.ts) bundles it with
 * `@simplewebauthn/browser` into lib/login/passkey-script.ts, which the page inlines and its
 * Content-Security-Policy allows by hash; nothing here runs on the server.
 *
 * What it does, and only on the elements the page rendered (lib/login/login-page.ts):
 * - the code form's empty `webauthn` field gets "1" when the browser has a user-verifying platform
 *   authenticator (`isUserVerifyingPlatformAuthenticatorAvailable`): a correct code then leads to
 *   the passkeys page rather than straight back to the app;
 * - `#passkey-form` (the first page): shows its button, and where the browser can, asks for a
 *   passkey through the input's autofill (conditional mediation, `autocomplete="username webauthn"`);
 *   either assertion is posted in `credential`;
 * - `#passkey-register-form` (the passkeys page): shows its button, and on a click creates a passkey
 *   and posts it in `credential`, or posts `failure` with the error's name (the page says so).
 *
 * A user who cancels a sign-in (`NotAllowedError`) stays where they are, with the autofill offered
 * again; the buttons stay `hidden` in a browser without WebAuthn, so nobody is shown a button that
 * cannot work.
 */
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  platformAuthenticatorIsAvailable,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';

/** The form's options: JSON the server wrote in `data-options` (the ceremony's challenge and parameters). */
function optionsOf<Options>(form: HTMLFormElement): Options {
  return JSON.parse(form.dataset.options ?? '') as Options;
}

/** Posts the form with its hidden `credential` set (and `failure`, when the ceremony failed). */
function post(form: HTMLFormElement, credential: unknown, failure?: string): void {
  const field = form.elements.namedItem('credential');
  if (field instanceof HTMLInputElement) field.value = credential === undefined ? '' : JSON.stringify(credential);
  if (failure !== undefined) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = 'failure';
    input.value = failure;
    form.append(input);
  }
  form.submit();
}

function show(id: string): HTMLElement | null {
  const element = document.getElementById(id);
  if (element !== null) element.hidden = false;
  return element;
}

const flags = document.querySelectorAll<HTMLInputElement>('input[name=webauthn]');
if (flags.length > 0) {
  void platformAuthenticatorIsAvailable().then((available) => {
    if (available) flags.forEach((flag) => (flag.value = '1'));
  });
}

const signIn = document.getElementById('passkey-form');
if (signIn instanceof HTMLFormElement && browserSupportsWebAuthn()) {
  const optionsJSON = optionsOf<Parameters<typeof startAuthentication>[0]['optionsJSON']>(signIn);
  const authenticate = (useBrowserAutofill: boolean): Promise<void> =>
    startAuthentication({ optionsJSON, useBrowserAutofill }).then((response) => post(signIn, response));
  // Conditional mediation waits, without any prompt, until the user picks a passkey in the
  // input's suggestions; the button's modal request aborts it (one ceremony at a time), and a
  // modal request that ends without a passkey (cancelled, timed out) offers the autofill again.
  const autofill = (): void => {
    void browserSupportsWebAuthnAutofill().then((supported) => {
      if (supported && document.querySelector('input[autocomplete$=webauthn]') !== null) authenticate(true).catch(() => undefined);
    });
  };
  show('passkey-sign-in')?.addEventListener('click', () => {
    authenticate(false).catch(autofill);
  });
  autofill();
}

const register = document.getElementById('passkey-register-form');
if (register instanceof HTMLFormElement && browserSupportsWebAuthn()) {
  const optionsJSON = optionsOf<Parameters<typeof startRegistration>[0]['optionsJSON']>(register);
  show('passkey-register')?.addEventListener('click', () => {
    startRegistration({ optionsJSON }).then(
      (response) => post(register, response),
      (error: unknown) => post(register, undefined, error instanceof Error ? error.name : 'Error'),
    );
  });
}
