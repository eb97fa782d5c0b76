import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { ROOT } from './console-server.js';

/** Debian's Chromium (`apt-get install -y chromium`); never a downloaded browser. */
export const CHROMIUM_PATH = process.env.PLAITA_CHROMIUM ?? '/usr/bin/chromium';
export const SHOT_DIR = join(ROOT, 'test-results/console');
const AXE_PATH = join(ROOT, 'node_modules/axe-core/axe.min.js');

const inCi = process.env.CI === 'true' || process.env.CI === '1';

/**
 * `describe` when Chromium is installed; otherwise skipped with a one-line reason locally, and
 * one failing test in CI (like the Redis and PostgreSQL gates of test/support/services.ts).
 */
export function describeWithChromium(
  title: string,
  body: () => void,
  options: { timeout?: number } = {},
): void {
  if (existsSync(CHROMIUM_PATH)) {
    describe(title, options, body);
    return;
  }
  const reason = `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
  if (inCi) {
    describe(title, () => {
      it('needs Chromium', () => {
        throw new Error(`${reason} (CI=true: the browser tests are required)`);
      });
    });
    return;
  }
  console.warn(`skipping console browser tests: ${reason}`);
  describe.skip(title, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

export const WIDTHS = [1280, 390] as const;

export async function newContext(
  browser: Browser,
  width: number = 1280,
  options: { colorScheme?: 'light' | 'dark'; timezoneId?: string } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width, height: width > 600 ? 860 : 844 },
    colorScheme: options.colorScheme ?? 'light',
    timezoneId: options.timezoneId ?? 'Europe/Paris',
    locale: 'en-GB',
  });
  context.setDefaultTimeout(10_000);
  return context;
}

/** Fails the test on any uncaught page error (a console that throws is broken). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** Signs in through the form, as a person would: the key goes into the page once. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + '/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

// Code that runs in the page is written as strings: the tests are type-checked without the DOM
// library (tsconfig.json), so `window` cannot be named here by mistake in server code either.

/** Waits until no "Loading…" placeholder is left in the page. */
export async function settled(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor();
  // (not waitForFunction with a string: that is an eval, which the console's CSP refuses)
  await page.locator('.loading').first().waitFor({ state: 'detached' });
}

/** Goes to `path` inside the console without reloading it (as a click on a link does). */
export async function visit(page: Page, path: string): Promise<void> {
  await page.evaluate(
    `history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`,
  );
  await settled(page);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOT_DIR, { recursive: true });
  const path = join(SHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  return path;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

let axeSource: string | undefined;

/** axe-core on the page as it stands: the serious and critical violations, described. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the console's CSP (script-src 'self') stays on.
  axeSource ??= readFileSync(AXE_PATH, 'utf8');
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target })),
      })))`,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact ?? '?'} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
}
