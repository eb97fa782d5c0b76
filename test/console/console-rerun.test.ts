import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  axeViolations,
  describeWithChromium,
  launchChromium,
  newContext,
  screenshot,
  signIn,
  WIDTHS,
  watchErrors,
} from './support/browser.js';
import { startConsoleServer, type ConsoleServer } from './support/console-server.js';
import { start } from './support/seed.js';

/** start → prep → call (an HTTP call: effectful) → shape → end. */
const callerFlow = (url: string) => ({
  flow_id: 'rerun_caller',
  version: '1',
  nodes: [
    { type: 'start', id: 'start', next: 'prep' },
    { type: 'assignment', id: 'prep', output: { n: 1 }, next: 'call' },
    { type: 'http', id: 'call', url, failOnStatus: true, next: 'shape' },
    { type: 'assignment', id: 'shape', output: { called: true }, next: 'end' },
    { type: 'end', id: 'end', output: '$NODE.shape' },
  ],
});

/** a runs twice: `again` leads back to it in the first round only, so it ran only then. */
const cycleFlow = {
  flow_id: 'rerun_cycle',
  version: '1',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: 1, next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      branches: [
        { condition: { field: '$VISITS.a', operator: 'eq', value: 1 }, next: 'again' },
        { isDefault: true, next: 'end' },
      ],
    },
    { type: 'assignment', id: 'again', output: 2, next: 'a' },
    { type: 'end', id: 'end' },
  ],
};

/**
 * Rerun from a node (issue 32) in real Chromium against a real `plaita serve`: the dry run's
 * list with the HTTP call marked effectful, the confirm that opens the new execution, which
 * says what it reruns; a refusal in the server's words; no action for a viewer.
 */
describeWithChromium(
  'console rerun from a node',
  () => {
    let server: ConsoleServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    let upstream: Server;
    let calls = 0;

    beforeAll(async () => {
      upstream = createServer((_req, res) => {
        calls++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      // --allow-private-networks: the flow may call the upstream on 127.0.0.1.
      [server, browser] = await Promise.all([
        startConsoleServer(['--allow-private-networks']),
        launchChromium(),
      ]);
      context = await newContext(browser, 1280);
      page = await context.newPage();
      errors = watchErrors(page);
      await signIn(page, server.url, server.key);
    });

    afterEach(() => {
      expect(errors.splice(0), 'uncaught errors in the page').toEqual([]);
    });

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await new Promise((resolve) => upstream?.close(resolve));
    });

    const openNode = async (executionId: string, nodeId: string) => {
      await page.goto(`${server.url}/executions/${executionId}`);
      await page.locator(`g[data-node-id="${nodeId}"][data-state="done"]`).click();
      await page.locator('#node-title').getByText(nodeId).waitFor();
    };

    it('the dry run lists what runs again, the HTTP call marked; confirmed, the rerun opens and says what it reruns (1280 and 390 px)', async () => {
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width > 600 ? 860 : 844 });
        const original = await start(server, { flow: callerFlow(url), input: {} });
        expect(original.status).toBe('completed');
        await openNode(original.executionId, 'call');
        await page.getByRole('button', { name: 'Rerun from here' }).click();

        const plan = page.getByRole('list', { name: 'Nodes that run again' });
        await plan.waitFor();
        const items = await plan.locator('li').all();
        const ids = await Promise.all(items.map((li) => li.getAttribute('data-node-id')));
        expect(ids).toEqual(['call', 'shape', 'end']);
        const effectful = plan.locator('li[data-effectful="true"]');
        expect(await effectful.count()).toBe(1);
        expect(await effectful.innerText()).toMatch(/^call\s+http\s+.*effectful$/);
        expect(await effectful.locator('.effect-glyph').count()).toBe(1);
        expect(await page.locator('.effect-warning').innerText()).toContain(
          '1 effectful node (call) acts on the world again.',
        );
        if (width === 1280) expect(await axeViolations(page)).toEqual([]);
        await screenshot(page, `execution-rerun-plan-${width}`);

        const before = calls;
        await page.getByRole('button', { name: 'Start rerun' }).click();
        await page.waitForURL(
          (next) =>
            /^\/executions\/[^/]+$/.test(next.pathname) &&
            !next.pathname.endsWith(original.executionId),
        );
        await page.locator('section.execution[data-status="completed"]').waitFor();
        const facts = page.locator('dl.facts-row');
        await expect.poll(() => facts.innerText()).toMatch(/Rerun of:?\s*\S+\s+from call/);
        expect(await facts.locator(`a[href="/executions/${original.executionId}"]`).count()).toBe(
          1,
        );
        // The new execution's page is not left with the old one's rerun panel open.
        expect(await page.getByRole('list', { name: 'Nodes that run again' }).count()).toBe(0);
        expect(calls, 'the HTTP call ran again, once').toBe(before + 1);
        await screenshot(page, `execution-rerun-${width}`);
      }
      await page.setViewportSize({ width: 1280, height: 860 });
    });

    it('a refused rerun shows the server’s reason (a node that ran only in an earlier round)', async () => {
      const original = await start(server, { flow: cycleFlow, input: {} });
      expect(original.status).toBe('completed');
      await openNode(original.executionId, 'again');
      await page.getByRole('button', { name: 'Rerun from here' }).click();
      const alert = page.locator('.rerun [role="alert"]');
      await expect
        .poll(() => alert.innerText())
        .toMatch(/^Cannot rerun from again: .*earlier round of a cycle/);
      expect(await page.getByRole('button', { name: 'Start rerun' }).count()).toBe(0);
      await screenshot(page, 'execution-rerun-refused-1280');
    });

    it('a viewer is offered no rerun', async () => {
      const original = await start(server, { flow: cycleFlow, input: {} });
      const made = await server.api<{ token: string }>('POST', '/v1/api-keys', {
        name: 'rerun viewer',
        role: 'viewer',
      });
      expect(made.status).toBe(201);
      const viewer = await newContext(browser, 1280);
      const viewerPage = await viewer.newPage();
      const viewerErrors = watchErrors(viewerPage);
      await signIn(viewerPage, server.url, made.body.token);
      await viewerPage.goto(`${server.url}/executions/${original.executionId}`);
      await viewerPage.locator('g[data-node-id="sw"][data-state="done"]').click();
      await viewerPage.locator('#node-title').getByText('sw').waitFor();
      expect(await viewerPage.getByRole('button', { name: 'Rerun from here' }).count()).toBe(0);
      await viewer.close();
      expect(viewerErrors).toEqual([]);
    });
  },
  { timeout: 90_000 },
);
