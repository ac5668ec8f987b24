/**
 * The demo's browser script (served as /demo.js, bundled by esbuild when first asked for; see
 * local/demo-client.ts): the page at http://127.0.0.1:3000 calls the issuer's UserInfo at
 * http://localhost:3000, another origin, through the typed client (client/), as a single-page
 * application would with the access token it holds. The request carries `Authorization`, so the
 * browser first sends a CORS preflight; the local runtime answers it as API Gateway does
 * (local/preflight.ts), and the response's `Access-Control-Allow-Origin` lets the page read it.
 *
 * Runs in the browser only. The project's type check has no DOM library (the Lambda code must
 * not see browser globals), so the little of the DOM used here is declared below.
 */
import { bearer, createIdentityClient } from '../client';

interface DemoElement {
  textContent: string | null;
  readonly dataset: Record<string, string | undefined>;
}
declare const document: { getElementById(id: string): DemoElement | null };

/** What the page shows in `#browser-userinfo`, and states in its `data-outcome` for tests. */
export type Outcome = 'ok' | 'refused' | 'blocked';

async function callUserInfo(target: DemoElement): Promise<void> {
  const { issuer, accessToken } = target.dataset;
  if (issuer === undefined || accessToken === undefined) return;
  const idp = createIdentityClient(issuer);
  let outcome: Outcome;
  let shown: unknown;
  try {
    const { data, error, response } = await idp.GET('/idp/v1/account/userinfo', { headers: { Authorization: bearer(accessToken) } });
    outcome = data === undefined ? 'refused' : 'ok';
    shown = data ?? { status: response.status, ...error };
  } catch (error) {
    // fetch rejects, without saying why, when the browser withholds a cross-origin response (no
    // or a wrong Access-Control-Allow-Origin) or the issuer cannot be reached.
    outcome = 'blocked';
    shown = { failed: error instanceof Error ? error.message : String(error), hint: 'the browser console says whether CORS refused it' };
  }
  target.dataset.outcome = outcome;
  target.textContent = JSON.stringify(shown, null, 2);
}

const target = document.getElementById('browser-userinfo');
if (target !== null) void callUserInfo(target);
