import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  axeViolations,
  describeWithChromium,
  launchChromium,
  newContext,
  screenshot,
  signIn,
  visit,
  watchErrors,
} from './support/browser.js';
import { startConsoleServer, type ConsoleServer } from './support/console-server.js';
import { seedEverything } from './support/seed.js';

/**
 * Every page of the console at 1280 and 390 px: drawn without a page error, no serious or
 * critical axe-core violation, and a screenshot under test-results/console/ for a reviewer.
 */
describeWithChromium(
  'console pages',
  () => {
    let server: ConsoleServer;
    let browser: Browser;
    let pages: Array<{ name: string; path: string; ready?: (page: Page) => Promise<void> }>;

    beforeAll(async () => {
      [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
      const seeded = await seedEverything(server);
      const graphDrawn = async (page: Page) => {
        await page.locator('.execution[data-ready="true"]').waitFor();
      };
      pages = [
        {
          name: 'overview',
          path: '/',
          ready: (p) => p.locator('.uplot, canvas').first().waitFor(),
        },
        { name: 'executions', path: '/executions' },
        { name: 'execution-waiting', path: `/executions/${seeded.waiting}`, ready: graphDrawn },
        { name: 'execution-failed', path: `/executions/${seeded.failed}`, ready: graphDrawn },
        { name: 'execution-completed', path: `/executions/${seeded.completed}`, ready: graphDrawn },
        { name: 'approvals', path: '/approvals' },
        { name: 'flows', path: '/flows' },
        { name: 'flow', path: '/flows/expense_approval' },
        { name: 'flow-new', path: '/flows/new' },
        { name: 'schedules', path: '/schedules' },
        { name: 'schedule-new', path: '/schedules/new' },
        {
          name: 'schedule-edit',
          path: `/schedules/${seeded.scheduleId}`,
          ready: (p) => p.getByTestId('cron-preview').waitFor(),
        },
        { name: 'dead-letters', path: '/dead-letters' },
        { name: 'workers', path: '/workers' },
        { name: 'api-keys', path: '/api-keys' },
        { name: 'audit', path: '/audit' },
      ];
    });

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    /**
     * Signs in, then visits the pages (in place, as links do): a screenshot `<page>-<suffix>` of
     * each, and axe-core on each when `axe` is set.
     */
    async function tour(options: {
      width: number;
      suffix: string;
      dark?: boolean;
      axe: boolean;
      only?: string[];
      /** WCAG 1.4.10: the page must not scroll sideways at this width. */
      reflow?: boolean;
    }) {
      const { width, suffix, only } = options;
      const context = await newContext(browser, width, {
        colorScheme: options.dark ? 'dark' : 'light',
      });
      const page = await context.newPage();
      const errors = watchErrors(page);
      const problems: string[] = [];
      const check = async (name: string) => {
        if (options.axe)
          problems.push(...(await axeViolations(page)).map((v) => `${name} (${suffix}): ${v}`));
        if (options.reflow) {
          // A string: this project's TypeScript has no DOM types (it runs in the page).
          const overflow = await page.evaluate<number>(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          );
          if (overflow > 0)
            problems.push(`${name} (${suffix}): ${overflow} px wider than the screen`);
        }
        await screenshot(page, `${name}-${suffix}`);
      };
      await page.goto(server.url + '/');
      await page.getByLabel('API key').waitFor();
      if (!only) await check('sign-in');
      await signIn(page, server.url, server.key);
      for (const { name, path, ready } of pages.filter((p) => !only || only.includes(p.name))) {
        await visit(page, path);
        if (ready) await ready(page);
        await check(name);
      }
      await context.close();
      return { errors, problems };
    }

    it('every page at 1280 px: drawn, no serious axe-core violation, photographed', async () => {
      const { errors, problems } = await tour({ width: 1280, suffix: '1280', axe: true });
      expect(errors, 'uncaught errors in the page').toEqual([]);
      expect(problems, 'serious or critical axe-core violations').toEqual([]);
    });

    it('every page at 390 px: drawn and photographed', async () => {
      const { errors } = await tour({ width: 390, suffix: '390', axe: false });
      expect(errors, 'uncaught errors in the page').toEqual([]);
    });

    it('the main pages at 320 px reflow: nothing scrolls sideways', async () => {
      const { errors, problems } = await tour({
        width: 320,
        suffix: '320',
        axe: false,
        reflow: true,
        only: ['overview', 'executions', 'execution-waiting', 'approvals', 'flows', 'schedules'],
      });
      expect(errors, 'uncaught errors in the page').toEqual([]);
      expect(problems, 'pages that scroll sideways at 320 px').toEqual([]);
    });

    it('the main pages in dark mode: no serious axe-core violation (contrast)', async () => {
      const { errors, problems } = await tour({
        width: 1280,
        suffix: '1280-dark',
        dark: true,
        axe: true,
        only: ['overview', 'executions', 'execution-waiting', 'flow'],
      });
      expect(errors, 'uncaught errors in the page').toEqual([]);
      expect(problems, 'serious or critical axe-core violations').toEqual([]);
    });

    it("the workers page for a tenant's viewer: the shared worker listed, where it runs not shown", async () => {
      const made = await server.api<{ token: string }>('POST', '/v1/api-keys', {
        name: 'acme viewer',
        role: 'viewer',
        tenant: 'acme',
      });
      expect(made.status).toBe(201);
      const context = await newContext(browser, 1280);
      const page = await context.newPage();
      const errors = watchErrors(page);
      await signIn(page, server.url, made.body.token);
      await visit(page, '/workers');
      const row = page.getByRole('row').nth(1);
      await row.waitFor();
      await page.getByText('shown to platform keys only').waitFor();
      const text = await row.innerText();
      expect(text).not.toMatch(/pid|null/);
      expect(text).toMatch(/— \/ \d+/);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'workers-tenant-1280');
      await context.close();
      expect(errors, 'uncaught errors in the page').toEqual([]);
    });
    // A tour visits 16 pages; CI runs other test files beside this one.
  },
  { timeout: 120_000 },
);
