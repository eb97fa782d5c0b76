import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { nodeResults } from '../../src/state/checkpoint-context.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

const expenseFlow = JSON.parse(
  readFileSync(new URL('../../examples/approval.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const expenseInput = {
  id: 'EXP-7',
  requester: 'Bob',
  amount: 120.5,
  reason: 'travel',
  approvers: ['alice@example.com'],
};

/** One approval node of `strategy`, its approvers from the input; the end shows the event. */
function teamFlow(strategy: 'any' | 'all' | 'majority', extra: Record<string, unknown> = {}) {
  return {
    flow_id: `team_${strategy}`,
    version: '1',
    nodes: [
      { type: 'start', id: 'start', next: 'ask' },
      {
        type: 'approval',
        id: 'ask',
        approval_title: 'Budget <Q3>',
        approval_content: 'Spend & "save"',
        approvers: ['$INPUT.approvers'],
        approval_strategy: strategy,
        next: 'done',
        ...extra,
      },
      {
        type: 'end',
        id: 'done',
        output: {
          decision: '$NODE.ask.event_data.event_data.final_decision',
          details: '$NODE.ask.event_data.event_data.approval_details',
        },
      },
    ],
  };
}

const TEAM = ['ann@example.com', 'ben@example.com', 'cid@example.com'];

interface Approval {
  executionId: string;
  nodeId: string;
  title: string;
  content: string;
  approvers: string[];
  strategy: string;
  decisions: Array<{ approver: string; decision: string; comment: string | null }>;
  decided: boolean;
  finalDecision: string | null;
  since: string;
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await api.close();
});

async function startWaiting(
  flow: Record<string, unknown>,
  input: Record<string, unknown>,
  token?: string,
): Promise<string> {
  const res = await api.fetch('/v1/executions?wait=10s', {
    method: 'POST',
    json: { flow, input },
    ...(token ? { token } : {}),
  });
  expect(res.status).toBe(201);
  const view = await body<{ executionId: string; status: string }>(res);
  expect(view.status).toBe('waiting');
  return view.executionId;
}

async function settled(id: string): Promise<{ status: string; result: unknown }> {
  await expect
    .poll(
      async () => (await body<{ status: string }>(await api.fetch(`/v1/executions/${id}`))).status,
      {
        timeout: 10_000,
      },
    )
    .toBe('completed');
  return body(await api.fetch(`/v1/executions/${id}`));
}

function decide(
  id: string,
  approver: string,
  decision: string,
  init: { token?: string; comment?: string } = {},
) {
  return api.fetch(`/v1/approvals/${id}/ask/decisions`, {
    method: 'POST',
    json: { approver, decision, ...(init.comment ? { comment: init.comment } : {}) },
    ...(init.token ? { token: init.token } : {}),
  });
}

async function linksFor(id: string, nodeId: string, approver: string, expiresIn?: string) {
  const res = await api.fetch(`/v1/approvals/${id}/${nodeId}/links`, {
    method: 'POST',
    json: { approver, ...(expiresIn ? { expiresIn } : {}) },
  });
  expect(res.status).toBe(201);
  return body<{ approveUrl: string; rejectUrl: string; expiresAt: string }>(res);
}

/** A link is used without any key: the token is the credential. */
function openLink(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, init);
}

function postForm(url: string, fields: Record<string, string> = {}, accept = 'text/html') {
  return openLink(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('approvals over HTTP', () => {
  it('the expense walk: listed, a link page shows without deciding, its POST decides, completed', async () => {
    const id = await startWaiting(expenseFlow, expenseInput);

    const list = await body<Page<Approval>>(await api.fetch('/v1/approvals?status=pending'));
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      executionId: id,
      nodeId: 'approve',
      title: 'Expense EXP-7',
      content: 'Bob asks for 120.5 EUR: travel',
      approvers: ['alice@example.com'],
      strategy: 'any',
      decisions: [],
      decided: false,
    });
    expect(Date.parse(list.items[0]!.since)).not.toBeNaN();
    const mine = await body<Page<Approval>>(
      await api.fetch('/v1/approvals?approver=alice%40example.com'),
    );
    expect(mine.items.map((a) => a.executionId)).toEqual([id]);
    const others = await body<Page<Approval>>(
      await api.fetch('/v1/approvals?approver=mallory%40example.com'),
    );
    expect(others.items).toEqual([]);

    const links = await linksFor(id, 'approve', 'alice@example.com');
    expect(links.approveUrl.startsWith(`${api.url}/v1/approval-links/`)).toBe(true);
    expect(links.rejectUrl).not.toBe(links.approveUrl);
    expect(Date.parse(links.expiresAt) - Date.now()).toBeGreaterThan(6 * 24 * 3600_000);

    for (let i = 0; i < 2; i++) {
      const shown = await openLink(links.approveUrl);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-type')).toContain('text/html');
      expect(shown.headers.get('x-frame-options')).toBe('DENY');
      const page = await shown.text();
      expect(page).toContain('Expense EXP-7');
      expect(page).toContain('Bob asks for 120.5 EUR: travel');
      expect(page).toContain('alice@example.com');
      expect(page).toContain('<form method="post">');
      // Times for a person reading an email's link, not ISO strings.
      expect(page).toMatch(/Waiting since<\/dt><dd>\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC</);
      expect(page).not.toMatch(/<script|https?:\/\//);
    }
    const stillWaiting = await body<{ status: string }>(await api.fetch(`/v1/executions/${id}`));
    expect(stillWaiting.status).toBe('waiting');

    const done = await postForm(links.approveUrl, { comment: 'ok, safe travels' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('You approved');

    const final = await settled(id);
    expect(final.result).toEqual({
      status: 'approved',
      expense: 'EXP-7',
      decidedBy: 'alice@example.com',
    });
    const view = await body<{
      nodes: Array<{ nodeId: string; output: { event_data: { event_data: unknown } } }>;
    }>(await api.fetch(`/v1/executions/${id}`));
    const event = view.nodes.find((n) => n.nodeId === 'approve')!.output.event_data.event_data;
    expect(event).toMatchObject({
      node_id: 'approve',
      execution_id: id,
      tenant_id: 'default',
      trigger_type: 'approval_completed',
      final_decision: 'approve',
      approval_details: [
        { approver_id: 'alice@example.com', decision: 'approve', comments: 'ok, safe travels' },
      ],
      success: true,
    });

    expect((await postForm(links.approveUrl)).status).toBe(403);
    expect((await postForm(links.rejectUrl)).status).toBe(403);
    expect((await body<Page<Approval>>(await api.fetch('/v1/approvals'))).items).toEqual([]);

    const audit = await body<Page<{ action: string; target: string; role: string }>>(
      await api.fetch('/v1/audit'),
    );
    const actions = audit.items.map((e) => e.action);
    expect(actions).toContain('approval.link');
    expect(actions).toContain('approval.approve');
    // Decided through the link, by no key: not recorded as a viewer's write.
    expect(audit.items.find((e) => e.action === 'approval.approve')?.role).toBe('approval_link');
    expect(JSON.stringify(audit.items)).not.toContain('safe travels');
    expect(JSON.stringify(audit.items)).not.toContain('/v1/approval-links/');
  });

  it('strategy all: two approve, one rejects → rejected, with every decision in the event', async () => {
    const send = vi.spyOn(api.app.services.client, 'sendEvent');
    const id = await startWaiting(teamFlow('all'), { approvers: TEAM });

    const first = await body<Approval>(await decide(id, TEAM[0]!, 'approve'));
    expect(first).toMatchObject({ decided: false, finalDecision: null, strategy: 'all' });
    const second = await decide(id, TEAM[1]!, 'approve', { comment: 'fine by me' });
    expect(second.status).toBe(201);
    expect(await body(second)).toMatchObject({ decided: false });
    const listed = await body<Page<Approval>>(await api.fetch('/v1/approvals'));
    expect(listed.items[0]!.decisions.map((d) => [d.approver, d.decision])).toEqual([
      [TEAM[0], 'approve'],
      [TEAM[1], 'approve'],
    ]);
    expect(send).not.toHaveBeenCalled();

    const third = await body<Approval>(
      await decide(id, TEAM[2]!, 'reject', { comment: 'too much' }),
    );
    expect(third).toMatchObject({ decided: true, finalDecision: 'reject' });
    expect(third.decisions).toHaveLength(3);

    const final = await settled(id);
    expect(final.result).toMatchObject({
      decision: 'reject',
      details: [
        { approver_id: TEAM[0], decision: 'approve', comments: null },
        { approver_id: TEAM[1], decision: 'approve', comments: 'fine by me' },
        { approver_id: TEAM[2], decision: 'reject', comments: 'too much' },
      ],
    });
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]![1]).toMatchObject({ type: 'approval_decision' });
  });

  it('concurrent decisions deliver the event exactly once', async () => {
    const send = vi.spyOn(api.app.services.client, 'sendEvent');
    const team = Array.from({ length: 8 }, (_, i) => `p${i}@example.com`);
    const anyId = await startWaiting(teamFlow('any'), { approvers: team });
    const allId = await startWaiting(teamFlow('all'), { approvers: team });
    const [anyAnswers, allAnswers] = await Promise.all([
      Promise.all(team.map((who) => decide(anyId, who, 'approve'))),
      Promise.all(team.map((who) => decide(allId, who, 'approve'))),
    ]);
    expect(anyAnswers.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(allAnswers.map((r) => r.status)).toEqual(team.map(() => 201));
    expect((await settled(anyId)).result).toMatchObject({ decision: 'approve' });
    expect((await settled(allId)).result).toMatchObject({ decision: 'approve' });
    expect(send.mock.calls.filter((call) => call[0] === anyId)).toHaveLength(1);
    expect(send.mock.calls.filter((call) => call[0] === allId)).toHaveLength(1);
  });

  it('a delivery that fails keeps the decision; the same request again delivers it', async () => {
    const id = await startWaiting(teamFlow('any'), { approvers: TEAM });
    const send = vi
      .spyOn(api.app.services.client, 'sendEvent')
      .mockRejectedValueOnce(new StoreUnavailableError('queue down'));
    const failed = await decide(id, TEAM[0]!, 'approve');
    expect(failed.status).toBe(503);
    expect(await body(failed)).toMatchObject({ code: 'service_unavailable' });
    // Decided, not delivered: another approver's decision comes too late, but delivers it.
    const other = await decide(id, TEAM[1]!, 'reject');
    expect(other.status).toBe(409);
    const again = await decide(id, TEAM[0]!, 'approve');
    expect([201, 409]).toContain(again.status); // 409 once the delivered event has moved it on
    expect((await settled(id)).result).toMatchObject({ decision: 'approve' });
    expect(send.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('a decision whose delivery was lost is delivered by the next read of the list', async () => {
    const id = await startWaiting(teamFlow('any'), { approvers: TEAM });
    const send = vi
      .spyOn(api.app.services.client, 'sendEvent')
      .mockRejectedValueOnce(new StoreUnavailableError('queue down'));
    expect((await decide(id, TEAM[0]!, 'approve')).status).toBe(503);
    // Nobody submits again; an approver opens the list.
    const listed = await body<Page<Approval>>(await api.fetch('/v1/approvals'));
    expect(listed.items.map((item) => item.executionId)).not.toContain(id);
    expect((await settled(id)).result).toMatchObject({ decision: 'approve' });
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('the same approver sending the same decision again is answered as the first time', async () => {
    const id = await startWaiting(teamFlow('all'), { approvers: TEAM });
    expect((await decide(id, TEAM[0]!, 'approve')).status).toBe(201);
    const repeat = await decide(id, TEAM[0]!, 'approve');
    expect(repeat.status).toBe(201);
    expect(await body(repeat)).toMatchObject({ decided: false });
    expect((await decide(id, TEAM[0]!, 'reject')).status).toBe(409);
  });

  it('a second decision by the same approver is 409, a non-approver 403, a viewer cannot decide', async () => {
    const id = await startWaiting(teamFlow('all'), { approvers: TEAM });
    expect((await decide(id, TEAM[0]!, 'approve')).status).toBe(201);
    const again = await decide(id, TEAM[0]!, 'reject');
    expect(again.status).toBe(409);
    expect(await body(again)).toMatchObject({ code: 'conflict' });

    const stranger = await decide(id, 'mallory@example.com', 'approve');
    expect(stranger.status).toBe(403);
    expect(await body(stranger)).toMatchObject({ code: 'forbidden' });
    const strangerLinks = await api.fetch(`/v1/approvals/${id}/ask/links`, {
      method: 'POST',
      json: { approver: 'mallory@example.com' },
    });
    expect(strangerLinks.status).toBe(403);

    const viewer = await api.key('viewer', 'default');
    expect((await api.fetch('/v1/approvals', { token: viewer })).status).toBe(200);
    const viewed = await decide(id, TEAM[1]!, 'approve', { token: viewer });
    expect(viewed.status).toBe(403);
    expect(await body(viewed)).toMatchObject({ code: 'forbidden' });
    const viewerLinks = await api.fetch(`/v1/approvals/${id}/ask/links`, {
      token: viewer,
      method: 'POST',
      json: { approver: TEAM[1] },
    });
    expect(viewerLinks.status).toBe(403);

    const listed = await body<Page<Approval>>(await api.fetch('/v1/approvals'));
    expect(listed.items[0]!.decisions.map((d) => d.approver)).toEqual([TEAM[0]]);
  });

  it('used, expired and tampered links are refused with a 403 page and decide nothing', async () => {
    const id = await startWaiting(teamFlow('all'), { approvers: TEAM });

    // Used: the pair shares one use.
    const used = await linksFor(id, 'ask', TEAM[0]!);
    const asJson = await postForm(used.rejectUrl, {}, 'application/json');
    expect(asJson.status).toBe(200);
    expect(await body(asJson)).toMatchObject({
      decisions: [{ approver: TEAM[0], decision: 'reject' }],
    });
    for (const url of [used.rejectUrl, used.approveUrl]) {
      const page = await openLink(url);
      expect(page.status).toBe(403);
      // Not only "used": what happened, so the approver knows their decision counted.
      expect(await page.text()).toContain(`${TEAM[0]} already decided this approval: reject at`);
      expect((await postForm(url)).status).toBe(403);
    }
    const usedJson = await postForm(used.approveUrl, {}, 'application/json');
    expect(usedJson.status).toBe(403);
    expect(usedJson.headers.get('content-type')).toContain('application/problem+json');
    expect(await body(usedJson)).toMatchObject({ code: 'forbidden' });

    // The reject decided the `all` approval: start another for the remaining cases.
    const other = await startWaiting(teamFlow('all'), { approvers: TEAM });
    const expiring = await linksFor(other, 'ask', TEAM[1]!, '1s');
    const fresh = await linksFor(other, 'ask', TEAM[2]!);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const expiredPage = await openLink(expiring.approveUrl);
    expect(expiredPage.status).toBe(403);
    expect(await expiredPage.text()).toContain('expired');
    expect((await postForm(expiring.approveUrl)).status).toBe(403);

    const [prefix, token] = [
      fresh.approveUrl.slice(0, fresh.approveUrl.lastIndexOf('/') + 1),
      fresh.approveUrl.slice(fresh.approveUrl.lastIndexOf('/') + 1),
    ];
    const [payload, signature] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...claims, p: TEAM[0] }), 'utf8').toString(
      'base64url',
    );
    const flipped = signature[5] === 'A' ? 'B' : 'A';
    const tampered = [
      `${forged}.${signature}`,
      `${payload}.${signature.slice(0, 5)}${flipped}${signature.slice(6)}`,
      `${payload}.${signature}x`,
      payload,
      'not-a-link',
      `${payload}.${signature}.${signature}`,
    ];
    for (const bad of tampered) {
      const page = await openLink(prefix + bad);
      expect(page.status, bad).toBe(403);
      expect(await page.text(), bad).toContain('not valid');
      expect((await postForm(prefix + bad)).status, bad).toBe(403);
    }
    const approval = (await body<Page<Approval>>(await api.fetch('/v1/approvals'))).items.find(
      (a) => a.executionId === other,
    )!;
    expect(approval.decisions).toEqual([]);
    // The untampered link still works.
    expect((await postForm(fresh.approveUrl)).status).toBe(200);
  });

  it('a link refuses a comment it requires, and stays usable', async () => {
    const id = await startWaiting(teamFlow('any', { require_comments: true }), {
      approvers: TEAM,
    });
    const links = await linksFor(id, 'ask', TEAM[0]!);
    const shown = await (await openLink(links.rejectUrl)).text();
    expect(shown).toContain('required');
    expect(shown).toContain('Budget &#60;Q3&#62;');
    expect(shown).toContain('Spend &#38; &#34;save&#34;');
    expect(shown).not.toContain('<Q3>');
    const missing = await postForm(links.rejectUrl, { comment: '  ' });
    expect(missing.status).toBe(400);
    const ok = await postForm(links.rejectUrl, { comment: 'no budget left' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('You rejected');
    expect((await settled(id)).result).toMatchObject({ decision: 'reject' });
  });

  it('another tenant’s approval is 404 and absent from its list', async () => {
    const alice = await api.key('operator', 'alice');
    const bob = await api.key('operator', 'bob');
    const id = await startWaiting(expenseFlow, expenseInput, alice);
    expect(
      (await body<Page<Approval>>(await api.fetch('/v1/approvals', { token: alice }))).items,
    ).toHaveLength(1);
    expect(
      (await body<Page<Approval>>(await api.fetch('/v1/approvals', { token: bob }))).items,
    ).toEqual([]);
    const decided = await api.fetch(`/v1/approvals/${id}/approve/decisions`, {
      token: bob,
      method: 'POST',
      json: { approver: 'alice@example.com', decision: 'approve' },
    });
    expect(decided.status).toBe(404);
    const linked = await api.fetch(`/v1/approvals/${id}/approve/links`, {
      token: bob,
      method: 'POST',
      json: { approver: 'alice@example.com' },
    });
    expect(linked.status).toBe(404);
    // A link made in alice's tenant decides there, whoever opens it.
    const links = (await (
      await api.fetch(`/v1/approvals/${id}/approve/links`, {
        token: alice,
        method: 'POST',
        json: { approver: 'alice@example.com' },
      })
    ).json()) as { approveUrl: string };
    expect((await postForm(links.approveUrl)).status).toBe(200);
  });

  it('a reference that gave no approver is nobody: listed with no approvers, and no one decides as it', async () => {
    const id = await startWaiting(teamFlow('any'), {});
    const page = await body<Page<Approval>>(await api.fetch('/v1/approvals'));
    const approval = page.items.find((a) => a.executionId === id)!;
    expect(approval.approvers).toEqual([]);
    const res = await api.fetch(`/v1/approvals/${id}/ask/decisions`, {
      method: 'POST',
      json: { approver: '$INPUT.approvers', decision: 'approve' },
    });
    expect(res.status).toBe(403);
    expect((await body<{ status: string }>(await api.fetch(`/v1/executions/${id}`))).status).toBe(
      'waiting',
    );
  });

  it('an approver name no decision can carry is refused where it is made, and never listed', async () => {
    // A literal one: the flow is refused when saved, and when started inline.
    const literal = { ...teamFlow('any'), flow_id: 'bad_names' };
    (literal.nodes[1] as { approvers: unknown }).approvers = [TEAM[0], 'bob\u0007'];
    for (const [path, method, json] of [
      ['/v1/flows/bad_names/versions/1', 'PUT', literal],
      ['/v1/executions', 'POST', { flow: literal, input: {} }],
    ] as const) {
      const refused = await api.fetch(path, { method, json });
      expect(refused.status, path).toBe(422);
      const problem = await body<{ code: string; errors: Array<Record<string, unknown>> }>(refused);
      expect(problem.code).toBe('invalid_flow');
      expect(problem.errors[0]).toMatchObject({ path: 'nodes[1].approvers[1]' });
      expect(String(problem.errors[0]!.message)).toContain('approval node "ask"');
    }
    // One an expression gives: the execution ends in error at the node, and waits for no one.
    for (const bad of ['eve\u0085', 'dan\u2028', 'x'.repeat(321)]) {
      const res = await api.fetch('/v1/executions?wait=10s', {
        method: 'POST',
        json: { flow: teamFlow('any'), input: { approvers: [TEAM[0], bad] } },
      });
      const view = await body<{
        executionId: string;
        status: string;
        error: { nodeId: string; message: string };
      }>(res);
      expect(view.status).toBe('error');
      expect(view.error.nodeId).toBe('ask');
      expect(view.error.message).toContain('ApproverNameError');
      const page = await body<Page<Approval>>(await api.fetch('/v1/approvals'));
      expect(page.items.map((a) => a.executionId)).not.toContain(view.executionId);
    }
    // The decisions route refuses such a name as the node does (it would be 403, not a 400).
    const id = await startWaiting(teamFlow('any'), { approvers: TEAM });
    expect((await decide(id, 'eve\u0085', 'approve')).status).toBe(400);
    // One stored by an approval that waited since before the node refused it: not listed.
    const state = (await api.backends.store.load(id))!;
    const results = nodeResults(state.context) as Record<
      string,
      { service_config: { approver_config: { approvers: string[] } } }
    >;
    results.ask!.service_config.approver_config.approvers.push('old\u0007');
    await api.backends.store.save({ ...state, version: state.version + 1 });
    const page = await body<Page<Approval>>(await api.fetch('/v1/approvals'));
    expect(page.items.find((a) => a.executionId === id)?.approvers).toEqual(TEAM);
  });

  it('approval_decision through the events route: refused where an approval node decides, even early', async () => {
    const decision = { type: 'approval_decision', data: { final_decision: 'approve' } };
    // Early, before the approval node waits: kept in the inbox, it would decide on arrival.
    const early = {
      flow_id: 'early',
      nodes: [
        { type: 'start', id: 'start', next: 'gate' },
        { type: 'event', id: 'gate', event_type: 'go', next: 'ask' },
        ...teamFlow('any').nodes.slice(1),
      ],
    };
    for (const flow of [teamFlow('all'), early]) {
      const id = await startWaiting(flow, { approvers: TEAM });
      const res = await api.fetch(`/v1/executions/${id}/events`, {
        method: 'POST',
        json: decision,
      });
      expect(res.status).toBe(409);
      expect(await body(res)).toMatchObject({ code: 'conflict', errors: [{ path: 'body.type' }] });
      const view = await body<{ status: string }>(await api.fetch(`/v1/executions/${id}`));
      expect(view.status).toBe('waiting');
    }
    // A flow with no approval node may wait for an event of that name like any other.
    const plain = {
      flow_id: 'plain',
      nodes: [
        { type: 'start', id: 'start', next: 'wait' },
        { type: 'event', id: 'wait', event_type: 'approval_decision', next: 'done' },
        { type: 'end', id: 'done', output: 'ok' },
      ],
    };
    const id = await startWaiting(plain, {});
    const res = await api.fetch(`/v1/executions/${id}/events`, { method: 'POST', json: decision });
    expect(res.status).toBe(202);
  });

  it('bad requests are problems: unknown node, not waiting, bad fields, bad cursor', async () => {
    const id = await startWaiting(teamFlow('any'), { approvers: TEAM });
    const cases: Array<[string, string, unknown, number, string]> = [
      [
        'not an approval node',
        `/v1/approvals/${id}/start/decisions`,
        { approver: TEAM[0], decision: 'approve' },
        404,
        'not_found',
      ],
      [
        'no execution',
        '/v1/approvals/nope/ask/decisions',
        { approver: TEAM[0], decision: 'approve' },
        404,
        'not_found',
      ],
      [
        'bad decision',
        `/v1/approvals/${id}/ask/decisions`,
        { approver: TEAM[0], decision: 'maybe' },
        400,
        'invalid_request',
      ],
      [
        'unknown field',
        `/v1/approvals/${id}/ask/decisions`,
        { approver: TEAM[0], decision: 'approve', x: 1 },
        400,
        'invalid_request',
      ],
      [
        'bad expiresIn',
        `/v1/approvals/${id}/ask/links`,
        { approver: TEAM[0], expiresIn: 'soon' },
        400,
        'invalid_request',
      ],
      [
        'too long',
        `/v1/approvals/${id}/ask/links`,
        { approver: TEAM[0], expiresIn: '1000d' },
        400,
        'invalid_request',
      ],
    ];
    for (const [name, path, json, status, code] of cases) {
      const res = await api.fetch(path, { method: 'POST', json });
      expect(res.status, name).toBe(status);
      expect(await body(res), name).toMatchObject({ code });
    }
    expect((await api.fetch('/v1/approvals?cursor=garbage')).status).toBe(400);
    expect((await api.fetch('/v1/approvals?status=done')).status).toBe(400);
    expect((await decide(id, TEAM[0]!, 'approve')).status).toBe(201);
    await settled(id);
    const late = await decide(id, TEAM[1]!, 'approve');
    expect(late.status).toBe(409);
    const lateLinks = await api.fetch(`/v1/approvals/${id}/ask/links`, {
      method: 'POST',
      json: { approver: TEAM[1] },
    });
    expect(lateLinks.status).toBe(409);
  });

  it('pages follow the waiting executions: short pages skip other waits, the cursor reaches all', async () => {
    const ids: string[] = [];
    const eventFlow = {
      nodes: [
        { type: 'start', id: 'start', next: 'wait' },
        { type: 'event', id: 'wait', event_type: 'ping', next: 'done' },
        { type: 'end', id: 'done', output: 'pong' },
      ],
    };
    for (let i = 0; i < 3; i++) {
      ids.push(await startWaiting(teamFlow('any'), { approvers: TEAM }));
      await startWaiting(eventFlow, {});
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Approval> = await body(
        await api.fetch(
          `/v1/approvals?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        ),
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((a) => a.executionId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('the routes are in /openapi.json', async () => {
    const doc = await body<{ paths: Record<string, unknown> }>(await api.fetch('/openapi.json'));
    for (const path of [
      '/v1/approvals',
      '/v1/approvals/{executionId}/{nodeId}/decisions',
      '/v1/approvals/{executionId}/{nodeId}/links',
      '/v1/approval-links/{token}',
    ])
      expect(doc.paths, path).toHaveProperty([path]);
  });
});
