import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  describeWithChromium,
  launchChromium,
  newContext,
  screenshot,
  settled,
  signIn,
  watchErrors,
} from './support/browser.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { startConsoleServer, type ConsoleServer } from './support/console-server.js';
import {
  approvalFlow,
  deadLetter,
  echoFlow,
  expenseInput,
  fetcherFlow,
  publish,
  start,
} from './support/seed.js';

/**
 * What a person does in the console, in real Chromium against a real `plaita serve` (issue 10,
 * Tests): the approval walk, a retry, a dead-letter replay, a flow with a mistake, a schedule,
 * deep links, dark mode and the time switch.
 */
describeWithChromium(
  'console walks',
  () => {
    let server: ConsoleServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    /** A service the fetcher flow calls: it fails (500) until `healthy` is set. */
    let upstream: Server;
    let healthy = false;

    beforeAll(async () => {
      upstream = createServer((_req, res) => {
        res.writeHead(healthy ? 200 : 500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: healthy }));
      });
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      // --allow-private-networks: the flows may call the upstream on 127.0.0.1.
      [server, browser] = await Promise.all([
        startConsoleServer(['--allow-private-networks']),
        launchChromium(),
      ]);
      await publish(server, echoFlow);
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

    const node = (id: string, state: string) =>
      page.locator(`g[data-node-id="${id}"][data-state="${state}"]`);

    it('approval walk: publish, start, open from the inbox, approve, watch the graph turn done', async () => {
      // A fresh server has no flow: the example is pasted, saved and published by clicking.
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Flows' })
        .click();
      await page.getByRole('link', { name: 'New flow' }).click();
      await page.getByLabel('Document (JSON)').fill(JSON.stringify(approvalFlow, null, 2));
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.waitForURL('**/flows/expense_approval?version=1.0.0');
      const publishButton = page.getByRole('button', { name: 'Publish' });
      await expect.poll(() => publishButton.isEnabled()).toBe(true);
      page.once('dialog', (dialog) => void dialog.accept());
      await publishButton.click();
      await page.getByRole('link', { name: '1.0.0 published' }).waitFor();
      await page
        .getByLabel('Input (JSON)', { exact: true })
        .fill(JSON.stringify(expenseInput('EXP-42')));
      await page.getByRole('button', { name: 'Start execution' }).click();
      await page.waitForURL(/\/executions\/[^/?]+$/);
      const executionId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
      await node('approve', 'waiting').waitFor();

      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Approvals' })
        .click();
      const card = page.locator(`article[data-approval="${executionId}/approve"]`);
      await expect.poll(() => card.textContent()).toContain('Expense EXP-42');
      // The inbox filtered by approver (kept in the URL), and a signed link for someone without a key.
      const filter = page.getByRole('search', { name: 'Filter approvals' });
      await filter.getByRole('searchbox', { name: 'Approver' }).fill('bob@example.com');
      await filter.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('No approval is waiting for bob@example.com.').waitFor();
      await filter.getByRole('searchbox', { name: 'Approver' }).fill('alice@example.com');
      await filter.getByRole('button', { name: 'Filter' }).click();
      await card.waitFor();
      expect(new URL(page.url()).searchParams.get('approver')).toBe('alice@example.com');
      await card.getByRole('button', { name: 'Copy signed link' }).click();
      await expect
        .poll(() => card.locator('.links').textContent())
        .toContain('/v1/approval-links/');
      await card.locator(`a[href="/executions/${executionId}"]`).click();
      await page.waitForURL(`**/executions/${executionId}`);

      await node('approve', 'waiting').waitFor();
      await node('approved', 'not reached').waitFor();
      // The decision button itself, in its card: a loose "Approve" also names the graph's
      // `approve` node, which is drawn first and was clicked instead when the card came later.
      await page
        .locator('article.approval')
        .getByRole('button', { name: /^Approve / })
        .click();
      // The graph follows the execution over SSE: the approval node and the approved end turn done.
      await node('approve', 'done').waitFor();
      await node('approved', 'done').waitFor();
      await node('rejected', 'not reached').waitFor();
      await page.locator('section.execution[data-status="completed"]').waitFor();
      await expect
        .poll(() => page.locator('.head-status .badge').textContent())
        .toContain('completed');
      const view = await server.api<{ status: string; result: { status: string } }>(
        'GET',
        `/v1/executions/${executionId}`,
      );
      expect(view.body.status).toBe('completed');
      expect(view.body.result.status).toBe('approved');
      // The human wait shows beside the node's own run, and the decision in its details.
      const row = page.locator('table.timeline tr', {
        has: page.getByRole('button', { name: 'approve', exact: true }),
      });
      await expect.poll(() => row.textContent()).toMatch(/waited \d/);
      await row.getByRole('button', { name: 'approve', exact: true }).click();
      await expect
        .poll(() => page.locator('.node-details').textContent())
        .toMatch(/Decision\s*approve.*alice@example\.com: approve/s);
    });

    it('a refused key: sign-in says so, and the message goes once the field is edited', async () => {
      const other = await newContext(browser, 1280);
      try {
        const signInPage = await other.newPage();
        await signInPage.goto(server.url + '/');
        await signInPage.getByLabel('API key').fill('plt_0000000000000000_nope');
        await signInPage.getByRole('button', { name: 'Sign in' }).click();
        const refusal = signInPage.getByText('That API key is unknown or revoked.');
        await refusal.waitFor();
        await signInPage.getByLabel('API key').fill('');
        await expect.poll(() => refusal.count()).toBe(0);
      } finally {
        await other.close();
      }
    });

    it('a failed execution is retried from its page and completes', async () => {
      const port = (upstream.address() as AddressInfo).port;
      healthy = false;
      const failed = await start(server, {
        flow: fetcherFlow(`http://127.0.0.1:${port}/`),
        input: {},
      });
      expect(failed.status).toBe('error');
      await page.goto(`${server.url}/executions/${failed.executionId}`);
      await node('call', 'failed').waitFor();
      await expect
        .poll(() => page.getByRole('alert').first().textContent())
        .toContain('Failed at call');
      healthy = true;
      await page.getByRole('button', { name: 'Retry from call' }).click();
      await page.locator('section.execution[data-status="completed"]').waitFor();
      await node('call', 'done').waitFor();
      await node('end', 'done').waitFor();
      // The retry leaves a trace: the view counts it, the page says so.
      const view = await server.api<{ retries: number }>(
        'GET',
        `/v1/executions/${failed.executionId}`,
      );
      expect(view.body.retries).toBe(1);
      await expect.poll(() => page.locator('dl').first().textContent()).toMatch(/Retried\s*1 time/);
    });

    it('an event is sent from the waiting panel, then the execution replayed with edited input', async () => {
      const waiter = {
        flow_id: 'waiter',
        version: '1',
        nodes: [
          { type: 'start', id: 'start', next: 'paid' },
          { type: 'event', id: 'paid', event_type: 'payment_received', next: 'shipped' },
          { type: 'event', id: 'shipped', event_type: 'shipped', next: 'end' },
          { type: 'end', id: 'end', output: { amount: '$INPUT.amount' } },
        ],
      };
      await publish(server, waiter);
      const waiting = await start(server, { flowId: 'waiter', input: { amount: 5 } });
      expect(waiting.status).toBe('waiting');
      await page.goto(`${server.url}/executions/${waiting.executionId}`);
      const form = page.getByRole('form', { name: 'Send an event' });
      expect(await form.getByLabel('Event type').inputValue()).toBe('payment_received');
      await form.getByLabel('Data (JSON)').fill('{"ref": "tx-1"}');
      await form.getByRole('button', { name: 'Send event' }).click();
      await node('shipped', 'waiting').waitFor();
      await server.api('POST', `/v1/executions/${waiting.executionId}/events`, { type: 'shipped' });
      await page.locator('section.execution[data-status="completed"]').waitFor();
      await node('paid', 'done').waitFor();

      await page.getByRole('button', { name: 'Replay with input…' }).click();
      const replay = page.getByRole('form', { name: 'Replay with edited input' });
      await replay.getByLabel('Input (JSON)').fill('{"amount": 12}');
      await replay.getByRole('button', { name: 'Start replay' }).click();
      await page.waitForURL((url) => !url.pathname.endsWith(waiting.executionId));
      const replayId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
      await node('paid', 'waiting').waitFor();
      const view = await server.api<{ replayOf: string; input: unknown; flowVersion: string }>(
        'GET',
        `/v1/executions/${replayId}`,
      );
      expect(view.body).toMatchObject({
        replayOf: waiting.executionId,
        input: { amount: 12 },
        flowVersion: '1',
      });
      // The replay's versions are below the ones the page streamed for the original: each must
      // still reach the page (it once resumed the new stream from the old execution's last id).
      const event = await server.api('POST', `/v1/executions/${replayId}/events`, {
        type: 'payment_received',
      });
      expect(event.status).toBe(202);
      await node('shipped', 'waiting').waitFor();
      await node('paid', 'done').waitFor();
    });

    it('a cancelled execution says where the cancel cut it short, plainly, not as a failure', async () => {
      const waiting = await start(server, {
        flow: {
          nodes: [
            { type: 'start', id: 'start', next: 'hold' },
            { type: 'event', id: 'hold', event_type: 'go', next: 'end' },
            { type: 'end', id: 'end' },
          ],
        },
        input: {},
      });
      expect(waiting.status).toBe('waiting');
      const cancel = await server.api('POST', `/v1/executions/${waiting.executionId}/cancel`);
      expect(cancel.status).toBe(202);
      await page.goto(`${server.url}/executions/${waiting.executionId}`);
      await node('hold', 'cancelled').waitFor();
      await expect
        .poll(() => page.locator('.cancelled-note').textContent())
        .toContain('Cancelled at hold: cancelled through the API');
      expect(await page.getByRole('alert').filter({ hasText: 'Failed' }).count()).toBe(0);
    });

    it('a running execution names its worker, and says so once no worker holds it (a crash)', async () => {
      // A run mid-flow as a worker leaves it, under a lease that lapses in 3 s with nothing
      // renewing it: a worker killed at that node. No message is queued, so nothing takes it.
      const echo = await start(server, { flowId: 'echo', input: { name: 'x' } });
      const store = new SqliteExecutionStore({ path: server.dbPath });
      try {
        await store.save({
          ...newExecutionState({ executionId: 'stalled-1' }),
          flowId: echo.flowId,
          flowVersion: echo.flowVersion,
          flowHash: echo.flowHash,
          status: 'running',
          context: { $INPUT: { name: 'x' } },
        });
        await store.acquireLease('stalled-1', { owner: 'w-doomed-1', ttlMs: 3000 });
      } finally {
        await store.close();
      }
      await page.goto(`${server.url}/executions/stalled-1`);
      const facts = page.locator('dl.facts');
      await expect.poll(() => facts.textContent()).toContain('w-doomed-1');
      await screenshot(page, 'execution-worker-held');
      // The lease runs out without an update on the stream: the page reads it again.
      const note = page
        .getByRole('status')
        .filter({ hasText: 'No worker is running it right now' });
      await note.waitFor({ timeout: 15_000 });
      expect(await facts.textContent()).not.toContain('w-doomed-1');
      await screenshot(page, 'execution-no-worker');
    });

    it('a dead letter is replayed once its execution exists', async () => {
      // A task for an execution the store did not hold yet: dead-lettered as unknown_execution.
      const letterId = await deadLetter(server, 'late-order-7');
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Dead letters' })
        .click();
      const row = page.locator(`tr[data-dead-letter="${letterId}"]`);
      await expect.poll(() => row.textContent()).toContain('unknown_execution');
      // Before its execution exists a replay could only come back: refused, named, kept.
      await row.getByRole('button', { name: `Replay dead letter ${letterId}` }).click();
      await page
        .getByRole('status')
        .getByText(/^Not replayed: .*late-order-7, which is not stored/)
        .waitFor();
      await screenshot(page, 'dead-letter-refused');
      expect(await row.count()).toBe(1);
      await start(server, { flowId: 'echo', executionId: 'late-order-7', input: { name: 'late' } });
      await row.getByRole('button', { name: `Replay dead letter ${letterId}` }).click();
      await row.waitFor({ state: 'detached' });
      await page.getByText('No dead letter.').waitFor();
      const letters = await server.api<{ items: unknown[] }>('GET', '/v1/dead-letters');
      expect(letters.body.items).toEqual([]);
    });

    it('a flow document with a mistake shows the issue on its node and cannot be published', async () => {
      const draft = {
        flow_id: 'greeter',
        version: '1',
        nodes: [
          { type: 'start', id: 'start', next: 'greet' },
          { type: 'assignment', id: 'greet', output: { message: 'hi' }, next: 'end' },
          { type: 'end', id: 'end', output: '$NODE.greet.message' },
        ],
      };
      expect((await server.api('PUT', '/v1/flows/greeter/versions/1', draft)).status).toBeLessThan(
        300,
      );
      await page.goto(`${server.url}/flows/greeter?version=1`);
      await settled(page);
      const publishButton = page.getByRole('button', { name: 'Publish' });
      await expect.poll(() => publishButton.isEnabled()).toBe(true);

      const broken = structuredClone(draft);
      broken.nodes[1]!.next = 'nowhere';
      await page.getByLabel('Document (JSON)').fill(JSON.stringify(broken, null, 2));
      // Validated as typed: the issue is outlined on its node and listed with its path.
      await page.locator('g[data-node-id="greet"].has-error').waitFor();
      const issues = page.getByTestId('issues');
      await expect.poll(() => issues.textContent()).toContain("target 'nowhere' names no node");
      expect(await issues.textContent()).toContain('nodes[1].next');
      expect(await publishButton.isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Save draft' }).click();
      await expect
        .poll(() => page.locator('.field-error[role="alert"]').textContent())
        .toContain('Not saved');
      expect(await publishButton.isDisabled()).toBe(true);
      // The document typed is still there (no data lost when a form fails).
      expect(await page.getByLabel('Document (JSON)').inputValue()).toContain('nowhere');
      const stored = await server.api<{ versions: Array<{ version: string; status: string }> }>(
        'GET',
        '/v1/flows/greeter',
      );
      expect(stored.body.versions).toEqual([
        expect.objectContaining({ version: '1', status: 'draft' }),
      ]);
    });

    it('a published version is saved as a new version from its page (the document is renamed)', async () => {
      await page.goto(`${server.url}/flows/echo?version=1.0.0`);
      await settled(page);
      await page.getByLabel('Save as version').fill('1.1.0');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.waitForURL('**/flows/echo?version=1.1.0');
      const saved = await server.api<{ status: string; document: { version: string } }>(
        'GET',
        '/v1/flows/echo/versions/1.1.0',
      );
      expect(saved.body).toMatchObject({ status: 'draft', document: { version: '1.1.0' } });
    });

    it('an approval of all: the first decision shows on the card, the next approver settles it', async () => {
      const flow = structuredClone(approvalFlow) as {
        flow_id: string;
        version: string;
        nodes: Array<Record<string, unknown>>;
      };
      flow.flow_id = 'two_signatures';
      flow.version = '1';
      for (const n of flow.nodes) if (n.type === 'approval') n.approval_strategy = 'all';
      await publish(server, flow);
      const started = await start(server, {
        flowId: 'two_signatures',
        input: { ...expenseInput('EXP-77'), approvers: ['alice@example.com', 'carol@example.com'] },
      });
      expect(started.status).toBe('waiting');
      await page.goto(`${server.url}/executions/${started.executionId}`);
      await node('approve', 'waiting').waitFor();
      const decideAs = page.getByLabel('Decide as');
      await expect.poll(() => decideAs.inputValue()).toBe('alice@example.com');
      await page
        .locator('article.approval')
        .getByRole('button', { name: /^Approve / })
        .click();
      // Not settled: the card shows alice's decision and offers carol, never alice again.
      const card = page.locator(`article[data-approval="${started.executionId}/approve"]`);
      await expect.poll(() => card.textContent()).toContain('alice@example.com: approve');
      await expect.poll(() => decideAs.inputValue()).toBe('carol@example.com');
      await page
        .locator('article.approval')
        .getByRole('button', { name: /^Approve / })
        .click();
      await page.locator('section.execution[data-status="completed"]').waitFor();
      await node('approved', 'done').waitFor();
    });

    it('a schedule is created with its next five fire times previewed', async () => {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Schedules' })
        .click();
      await page.getByRole('link', { name: 'New schedule' }).click();
      await page.getByLabel('Flow id').fill('echo');
      await page.getByLabel('Cron (5 or 6 fields)').fill('30 9 * * 1');
      await page.getByLabel('Time zone (IANA)').fill('Europe/Paris');
      await page.getByLabel('Input (JSON object)').fill('{"name": "Monday"}');
      const expected = await server.api<{ times: string[] }>(
        'GET',
        '/v1/schedules/preview?cron=30+9+*+*+1&timezone=Europe/Paris&count=5',
      );
      const preview = page.getByTestId('cron-preview');
      await expect
        .poll(async () =>
          Promise.all((await preview.locator('time').all()).map((t) => t.getAttribute('datetime'))),
        )
        .toEqual(expected.body.times);
      await page.getByRole('button', { name: 'Create schedule' }).click();
      await page.waitForURL(/\/schedules\/[0-9a-f-]{36}$/);
      const id = new URL(page.url()).pathname.split('/')[2]!;
      const saved = await server.api<{
        flowId: string;
        cron: string;
        timezone: string;
        input: unknown;
      }>('GET', `/v1/schedules/${id}`);
      expect(saved.body).toMatchObject({
        flowId: 'echo',
        cron: '30 9 * * 1',
        timezone: 'Europe/Paris',
        input: { name: 'Monday' },
      });
      // Its own page fires it on demand and shows the run, as the list's row does.
      await page.getByRole('button', { name: 'Fire now' }).click();
      await page.getByRole('link', { name: 'open the execution' }).waitFor();
      expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(1);
      await preview.locator('time').first().waitFor();
      await screenshot(page, 'schedule-page-1280');
      // Saved disabled: the runs panel says so at once (the page does not navigate anywhere).
      await page.getByLabel('Enabled').uncheck();
      await page.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => page.locator('.schedule-status').textContent())
        .toContain('off (disabled)');
      await page.getByRole('link', { name: 'Schedules' }).first().click();
      await expect.poll(() => page.locator('table.data').textContent()).toContain('30 9 * * 1');
    });

    it('an API key is created, its token shown once, and revoking it takes the token off screen', async () => {
      await page.goto(`${server.url}/api-keys`);
      await page.getByText('Create a key').click();
      await page.getByLabel('Name').fill('ci bot');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      const once = page.locator('.token-once');
      await expect.poll(() => once.textContent()).toMatch(/plt_[0-9a-f]{16}_/);
      page.once('dialog', (dialog) => void dialog.accept());
      await page
        .locator('tr', { hasText: 'ci bot' })
        .getByRole('button', { name: 'Revoke' })
        .click();
      await expect.poll(() => once.count()).toBe(0);
      const keys = await server.api<{ items: Array<{ name: string; revokedAt: string | null }> }>(
        'GET',
        '/v1/api-keys',
      );
      expect(keys.body.items.find((k) => k.name === 'ci bot')?.revokedAt).toBeTruthy();
    });

    it('deep links survive a reload: filters in the query string, an execution, the inbox', async () => {
      const done = await start(server, { flowId: 'echo', input: { name: 'deep' } });
      await page.goto(`${server.url}/executions?status=completed&flowId=echo`);
      const check = async () => {
        await settled(page);
        expect(await page.getByRole('checkbox', { name: 'completed' }).isChecked()).toBe(true);
        expect(await page.getByRole('checkbox', { name: 'waiting' }).isChecked()).toBe(false);
        expect(await page.locator('input[name="flowId"]').inputValue()).toBe('echo');
        await page.locator(`a[href="/executions/${done.executionId}"]`).first().waitFor();
        const flows = await page.locator('table.data tbody tr').allTextContents();
        expect(flows.length).toBeGreaterThan(0);
        for (const text of flows) expect(text).toMatch(/echo@/);
      };
      await check();
      await page.reload();
      await check();

      await page.goto(`${server.url}/executions/${done.executionId}`);
      await page.reload();
      await page.locator('section.execution[data-status="completed"]').waitFor();
      expect(await page.locator('h1').textContent()).toContain(done.executionId);

      await page.goto(`${server.url}/approvals`);
      await page.reload();
      await settled(page);
      expect(await page.locator('h1').textContent()).toBe('Approvals');
    });

    it('keyboard: g then a key goes to a page, ? opens the shortcuts, Escape closes them', async () => {
      await page.goto(`${server.url}/`);
      await settled(page);
      await page.keyboard.press('g');
      await page.keyboard.press('e');
      await page.waitForURL('**/executions');
      await page.keyboard.press('g');
      await page.keyboard.press('d');
      await page.waitForURL('**/dead-letters');
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.waitFor();
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });
    });

    it('dark mode and the UTC / local / relative time switch, both kept across a reload', async () => {
      const done = await start(server, { flowId: 'echo', input: { name: 'time' } });
      const view = await server.api<{ createdAt: string }>(
        'GET',
        `/v1/executions/${done.executionId}`,
      );
      const created = page.locator(`time[datetime="${view.body.createdAt}"]`).first();
      await page.goto(`${server.url}/executions/${done.executionId}`);
      await created.waitFor();

      const at = new Date(view.body.createdAt);
      const pad = (n: number) => String(n).padStart(2, '0');
      const utc = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} UTC`;
      // The browser runs in Europe/Paris (newContext): local time is UTC+1 in winter, +2 in summer.
      const parisOffset = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Paris',
        timeZoneName: 'longOffset',
      })
        .formatToParts(at)
        .find((part) => part.type === 'timeZoneName')!
        .value.replace('GMT', '');
      // A local time carries its offset: read without it, it could be any zone's.
      const paris = `${new Intl.DateTimeFormat('sv-SE', {
        timeZone: 'Europe/Paris',
        dateStyle: 'short',
        timeStyle: 'medium',
      }).format(at)} ${parisOffset}`;
      const timeSwitch = page.getByRole('group', { name: 'Time display' });
      await timeSwitch.getByText('UTC', { exact: true }).click();
      await expect.poll(() => created.textContent()).toBe(utc);
      await timeSwitch.getByText('Local', { exact: true }).click();
      await expect.poll(() => created.textContent()).toBe(paris);
      await timeSwitch.getByText('Relative', { exact: true }).click();
      await expect.poll(() => created.textContent()).toMatch(/^(now|\d+ (s|min) ago)$/);

      const background = () =>
        page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
      const light = await background();
      const theme = page.getByTestId('theme-toggle');
      await theme.click(); // system → dark
      await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
      expect(luminance(await background())).toBeLessThan(0.2);
      expect(luminance(light)).toBeGreaterThan(0.6);

      await page.reload();
      await created.waitFor();
      expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
      expect(await created.textContent()).toMatch(/^(now|\d+ (s|min) ago)$/);
      // Only preferences are stored: the API key never reaches localStorage.
      const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage })');
      expect(stored).not.toContain(server.key.slice(-20));

      await theme.click(); // dark → light
      await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('light');
      await theme.click(); // light → system
      await timeSwitch.getByText('Local', { exact: true }).click();
    });
    // Generous: a walk takes a few seconds, but CI runs other test files beside this one.
  },
  { timeout: 60_000 },
);

/** Relative luminance (0 black … 1 white) of a CSS `rgb(r, g, b)` colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0']).map(Number) as [
    number,
    number,
    number,
  ];
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}
