/**
 * A real browser for the tests of the hosted login (test/browser/): Debian's Chromium driven by
 * playwright-core (which downloads no browser of its own), and the service with the demo client
 * on one local server, as `npm start` serves them: the demo at http://127.0.0.1:PORT, the issuer
 * at http://localhost:PORT (a host name: WebAuthn refuses an IP address as RP ID).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { StageConfig } from '../../lib/platform/config';
import { createDemoClient, DEMO_CLIENT_ID, SECOND_DEMO_CLIENT_ID, type DemoClient } from '../../local/demo-client';
import { freePort } from '../../local/ports';
import { startTestService, type TestService, type TestServiceOptions } from './harness';

/** Debian's `chromium` package (.ci/run installs it when missing); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where screenshots of each page go: test output, git-ignored. */
export const SCREENSHOT_DIR = resolve(__dirname, '../../test-output/screenshots');

/** One browser per test file; each test opens its own context (cookies and all). */
export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI and this machine run as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
}

/** A full-page screenshot of what the browser shows, as test-output/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: resolve(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** The id (or, for a radio, `name=value`) of the element that has the keyboard focus. */
export function focusedElement(page: Page): Promise<string> {
  return page.evaluate(
    "(() => { const e = document.activeElement; if (!e) return ''; if (e.type === 'radio') return e.name + '=' + e.value; return e.id || (e.tagName.toLowerCase() + (e.value ? '=' + e.value : '')); })()",
  );
}

export interface DemoService {
  readonly service: TestService;
  readonly demo: DemoClient;
  /** The demo's home page, http://127.0.0.1:PORT/. */
  readonly demoUrl: string;
  /** The issuer, http://localhost:PORT. */
  readonly issuer: string;
}

/**
 * The test service with the demo client on the same server and port. The port is chosen first,
 * because the demo's redirect URI and post-logout redirect URI (registered for its two clients
 * local-web and local-web-2 here, as config/local.json registers http://127.0.0.1:3000/callback
 * and http://127.0.0.1:3000/) and its origin (which config/local.json's CORS settings allow as
 * http://127.0.0.1:3000) name it. `allowDemoOrigin: false` leaves the demo's origin out of CORS.
 */
export async function startDemoService(options: TestServiceOptions & { allowDemoOrigin?: boolean } = {}): Promise<DemoService> {
  const port = await freePort();
  const issuer = `http://localhost:${port}`;
  const origin = `http://127.0.0.1:${port}`;
  const demo = createDemoClient({ issuer, origin, clientId: DEMO_CLIENT_ID, redirectUriRegistered: true });
  const adjust = options.config ?? ((config: StageConfig) => config);
  const { allowDemoOrigin = true, ...serviceOptions } = options;
  const service = await startTestService({
    ...serviceOptions,
    port,
    pages: demo.routes,
    config: (config) => {
      const registered = registerDemoUris(adjust(config), demo);
      return allowDemoOrigin ? allowOrigin(registered, origin) : registered;
    },
  });
  return { service, demo, demoUrl: `${origin}/`, issuer };
}

/** The stage's CORS settings with `origin` allowed too (and none where it had none). */
function allowOrigin(config: StageConfig, origin: string): StageConfig {
  const cors = config.deployment.cors;
  if (cors === undefined) return config;
  return { ...config, deployment: { ...config.deployment, cors: { ...cors, allowOrigins: [...cors.allowOrigins, origin] } } };
}

/** The stage's demo clients with the demo's redirect URI and post-logout redirect URI registered too. */
function registerDemoUris(config: StageConfig, demo: DemoClient): StageConfig {
  const demoClients: readonly string[] = [DEMO_CLIENT_ID, SECOND_DEMO_CLIENT_ID];
  return {
    ...config,
    clients: config.clients.map((client) =>
      demoClients.includes(client.id)
        ? {
            ...client,
            redirectUris: [...client.redirectUris, demo.redirectUri],
            postLogoutRedirectUris: [...client.postLogoutRedirectUris, demo.postLogoutRedirectUri],
          }
        : client,
    ),
  };
}
