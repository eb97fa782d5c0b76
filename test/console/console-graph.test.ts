import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  describeWithChromium,
  launchChromium,
  newContext,
  screenshot,
  settled,
  signIn,
  WIDTHS,
  watchErrors,
} from './support/browser.js';
import { ROOT, startConsoleServer, type ConsoleServer } from './support/console-server.js';
import { publish, start } from './support/seed.js';

const PLUGIN = join(ROOT, 'test/console/support/router-node.mjs');

/** A flow whose `router` (a plugin type) leads on by the node ids in its own `routes` field. */
const routed = {
  flow_id: 'routed',
  version: '1',
  nodes: [
    { type: 'start', id: 'start', next: 'route' },
    { type: 'router', id: 'route', pick: 'express', routes: { express: 'ship', review: 'check' } },
    { type: 'if', id: 'check', condition: { field: '$INPUT.ok', operator: 'eq', value: true } },
    { type: 'assignment', id: 'true', output: 'checked', next: 'ship' },
    { type: 'end', id: 'false', output: 'refused' },
    { type: 'end', id: 'ship', output: 'shipped' },
  ],
};

const EDGES = [
  'start>route',
  'route>ship',
  'route>check',
  'check>true',
  'check>false',
  'true>ship',
].sort();

/**
 * The console draws every graph from the API's `graph` (docs/http-api.md §4 Flows): a plugin
 * node type's edges, which no client could derive from the document, show on the flow page, on
 * an execution, and in the editor as a document is typed.
 */
describeWithChromium(
  'console graphs drawn from the API',
  () => {
    let server: ConsoleServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];

    beforeAll(async () => {
      [server, browser] = await Promise.all([
        startConsoleServer(['--nodes', PLUGIN]),
        launchChromium(),
      ]);
      await publish(server, routed);
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
    });

    const drawnEdges = async () => {
      const edges = await page.locator('g.graph-edge').all();
      return (await Promise.all(edges.map((e) => e.getAttribute('data-edge')))).sort();
    };
    const edgeLabels = async () =>
      (await page.locator('g.graph-edge text').allTextContents()).sort();

    it('the flow page draws a plugin node’s edges with its labels, at 1280 and 390 px', async () => {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width > 600 ? 860 : 844 });
        await page.goto(`${server.url}/flows/routed?version=1`);
        await settled(page);
        await page.locator('g[data-node-id="route"]').waitFor();
        expect(await drawnEdges()).toEqual(EDGES);
        expect(await edgeLabels()).toEqual(['express', 'false', 'review', 'true']);
        expect(await page.locator('g.graph-node.missing').count()).toBe(0);
        // The plugin type vouches for nothing, so it is effectful: marked, named, explained.
        const effectful = await page.locator('.graph-effect').all();
        expect(effectful).toHaveLength(1);
        expect(await page.locator('g[data-node-id="route"] .graph-effect').count()).toBe(1);
        expect(await page.locator('g[data-node-id="route"]').getAttribute('aria-label')).toContain(
          'effectful',
        );
        await expect.poll(() => page.locator('.effect-legend').isVisible()).toBe(true);
        await screenshot(page, `flow-plugin-graph-${width}`);
      }
      await page.setViewportSize({ width: 1280, height: 860 });
    });

    it('an execution of it is drawn the same way, the route taken marked done', async () => {
      const run = await start(server, { flowId: 'routed', input: {} });
      expect(run.status).toBe('completed');
      await page.goto(`${server.url}/executions/${run.executionId}`);
      await page.locator('g[data-node-id="ship"][data-state="done"]').waitFor();
      await page.locator('g[data-node-id="check"][data-state="not reached"]').waitFor();
      expect(await drawnEdges()).toEqual(EDGES);
      await screenshot(page, 'execution-plugin-graph-1280');
    });

    it('the editor redraws from each validation: a route typed in leads to its node, a typo to a missing one', async () => {
      await page.goto(`${server.url}/flows/new`);
      await settled(page);
      const doc = structuredClone(routed) as typeof routed & { flow_id: string };
      doc.flow_id = 'routed_draft';
      (doc.nodes[1] as { routes: Record<string, string> }).routes = {
        express: 'ship',
        review: 'chekc',
      };
      await page.getByLabel('Document (JSON)').fill(JSON.stringify(doc, null, 2));
      await page.locator('g[data-node-id="chekc"].missing').waitFor();
      await expect
        .poll(drawnEdges)
        .toEqual([
          'check>false',
          'check>true',
          'route>chekc',
          'route>ship',
          'start>route',
          'true>ship',
        ]);
      await screenshot(page, 'flow-editor-plugin-graph-1280');
    });
  },
  { timeout: 60_000 },
);
