import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createDefaultRegistry,
  FlowDefinitionError,
  FlowError,
  parseFlow,
  runFlow,
} from '../../../src/index.js';
import { register } from '../../../src/nodes.js';

/**
 * `llm` against a local OpenAI-compatible server this test starts on 127.0.0.1: what it sends,
 * what it returns, 429 then success, abort on cancel, and the key never leaving the request.
 */
const KEY = 'sk-test-abcdefghijklmnop';
interface Seen {
  auth: string | undefined;
  body: Record<string, unknown>;
}
let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let answers: Array<(res: import('node:http').ServerResponse, req: IncomingMessage) => void> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      seen.push({
        auth: req.headers.authorization,
        body: JSON.parse(text) as Record<string, unknown>,
      });
      const answer = answers.shift() ?? completion('hello there');
      answer(res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.PLAITA_TEST_LLM_KEY = KEY;
});
afterAll(async () => {
  delete process.env.PLAITA_TEST_LLM_KEY;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  seen.length = 0;
  answers = [];
});

function completion(text: string) {
  return (res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        choices: [{ message: { role: 'assistant', content: text } }],
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      }),
    );
  };
}

function registry() {
  const r = createDefaultRegistry();
  register(r);
  return r;
}

function llmFlow(fields: Record<string, unknown>) {
  return {
    flow_id: 'llm',
    nodes: [
      { type: 'start', id: 'start', next: 'ask' },
      {
        type: 'llm',
        id: 'ask',
        base_url: baseUrl,
        model: 'tiny',
        api_key_env: 'PLAITA_TEST_LLM_KEY',
        next: 'end',
        ...fields,
      },
      { type: 'end', id: 'end', output: '$NODE.ask' },
    ],
  };
}

describe('llm', () => {
  it('sends one chat completion and returns text, model and usage', async () => {
    const out = await runFlow(
      llmFlow({
        system: 'be brief',
        prompt: 'Hi {% $INPUT.name %}',
        max_tokens: 5,
        json_mode: true,
      }),
      { name: 'Ada' },
      { registry: registry() },
    );
    expect(out).toEqual({
      text: 'hello there',
      model: 'tiny',
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      dry_run: false,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.auth).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.body).toEqual({
      model: 'tiny',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'Hi Ada' },
      ],
      temperature: 0.2,
      max_tokens: 5,
      response_format: { type: 'json_object' },
    });
  });

  it('a 429 with Retry-After is retried after it, then succeeds', async () => {
    answers.push((res) => {
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
      res.end('{"error":"slow down"}');
    });
    const out = await runFlow(llmFlow({ prompt: 'x' }), {}, { registry: registry() });
    expect(out).toMatchObject({ text: 'hello there' });
    expect(seen).toHaveLength(2);
  });

  it('5xx every time: a retryable node error after max_retries + 1 requests; 400 is not retried', async () => {
    const failing = (status: number) => (res: import('node:http').ServerResponse) => {
      res.writeHead(status, { 'retry-after': '0' });
      res.end('nope');
    };
    answers.push(failing(503), failing(503));
    const down = await runFlow(
      llmFlow({ prompt: 'x', max_retries: 1 }),
      {},
      { registry: registry() },
    ).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(FlowError);
    expect((down as FlowError).message).toMatch(/failed 2 times, last: 503/);
    expect(seen).toHaveLength(2);
    seen.length = 0;
    answers.push(failing(400));
    const refused = await runFlow(llmFlow({ prompt: 'x' }), {}, { registry: registry() }).catch(
      (e: unknown) => e,
    );
    expect((refused as FlowError).message).toMatch(/refused: 400/);
    expect(seen).toHaveLength(1);
  });

  it('cancelling the run aborts the request in flight', async () => {
    let closed: Promise<void> = Promise.resolve();
    answers.push((_res, req) => {
      closed = new Promise((resolve) => req.socket.once('close', () => resolve()));
    });
    const controller = new AbortController();
    const run = runFlow(
      llmFlow({ prompt: 'x' }),
      {},
      { registry: registry(), signal: controller.signal },
    );
    await expect.poll(() => seen.length).toBe(1);
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(FlowError);
    await closed; // the server saw the connection go
  });

  it('the key never appears in the result, the state or the logs; a literal key is refused at load', async () => {
    const logs: string[] = [];
    const logger = {
      debug: (f: object, m: string) => logs.push(JSON.stringify(f) + m),
      info: (f: object, m: string) => logs.push(JSON.stringify(f) + m),
      warn: (f: object, m: string) => logs.push(JSON.stringify(f) + m),
      error: (f: object, m: string) => logs.push(JSON.stringify(f) + m),
      child() {
        return this;
      },
    };
    const steps: unknown[] = [];
    const out = await runFlow(
      llmFlow({ prompt: 'x' }),
      {},
      {
        registry: registry(),
        logger,
        hooks: { onNodeEnd: (e: unknown) => void steps.push(e) },
      },
    );
    expect(JSON.stringify([out, steps, logs])).not.toContain(KEY);
    expect(() =>
      parseFlow(llmFlow({ prompt: 'x', api_key: KEY }), { registry: registry() }),
    ).toThrow(FlowDefinitionError);
    // The original's `${NAME}` form names the variable.
    expect(
      await runFlow(
        llmFlow({ prompt: 'x', api_key: '${PLAITA_TEST_LLM_KEY}', api_key_env: undefined }),
        {},
        { registry: registry() },
      ),
    ).toMatchObject({ text: 'hello there' });
  });

  it('without a key in its variable it fails naming what is missing', async () => {
    const error = await runFlow(
      llmFlow({ prompt: 'x', api_key_env: 'PLAITA_TEST_NO_SUCH_KEY' }),
      {},
      {
        registry: registry(),
      },
    ).catch((e: unknown) => e);
    expect((error as FlowError).message).toMatch(/PLAITA_TEST_NO_SUCH_KEY/);
    expect(seen).toHaveLength(0);
  });
});
