import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ServerEnv } from './server-env.js';

const INFO = {
  openapi: '3.1.0',
  info: {
    title: 'plaita API',
    version: '1',
    description:
      'Start executions, deliver events and approvals, publish flow versions, run schedules. Errors are application/problem+json with a stable code.',
  },
  security: [{ apiKey: [] }],
};

/** `/openapi.json` from the same schemas that validate requests, and `/docs` rendered from it. */
export function registerDocs(app: OpenAPIHono<ServerEnv>): void {
  // Through the registry: the generator builds `components` from it, dropping any passed in
  // the document's config, and every name under `security` must be declared there.
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'plt_<keyId>_<secret>',
  });
  app.doc31('/openapi.json', INFO);
  app.get('/docs', (c) => {
    const document = app.getOpenAPI31Document(INFO);
    return c.html(renderReference(document as unknown as OpenApiDocument));
  });
}

interface OpenApiDocument {
  info: { title: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string }>;
}

/** A self-contained reference page (no script, no CDN): every route, its parameters and answers. */
function renderReference(document: OpenApiDocument): string {
  const rows: string[] = [];
  const paths = Object.entries(document.paths ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [path, operations] of paths) {
    for (const [method, op] of Object.entries(operations)) {
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<code>${esc(p.name)}</code> <small>${esc(p.in)}${p.required ? ', required' : ''}</small>`,
        )
        .join(', ');
      const body = op.requestBody?.content
        ? `<details><summary>body (${esc(Object.keys(op.requestBody.content).join(', '))})</summary><pre>${esc(
            JSON.stringify(Object.values(op.requestBody.content)[0]?.schema ?? {}, null, 2),
          )}</pre></details>`
        : '';
      const answers = Object.entries(op.responses ?? {})
        .map(([status, r]) => `<code>${esc(status)}</code> ${esc(r.description ?? '')}`)
        .join('<br>');
      rows.push(
        `<section><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>` +
          `<p>${esc(op.summary ?? '')}</p>${op.description ? `<p>${esc(op.description)}</p>` : ''}` +
          `${params ? `<p>Parameters: ${params}</p>` : ''}${body}<p class="r">${answers}</p></section>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(document.info.title)} — reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1b1f24}
section{border-top:1px solid #d0d7de;padding:.5rem 0}h3{font-size:1rem;margin:.5rem 0}code,pre{font-family:ui-monospace,monospace}
pre{background:#f6f8fa;padding:.5rem;overflow:auto}.m{display:inline-block;min-width:4.5em;font-weight:600}
.get{color:#0969da}.post{color:#1a7f37}.put,.patch{color:#9a6700}.delete{color:#cf222e}.r{color:#57606a;font-size:.9em}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}pre{background:#161b22}section{border-color:#30363d}}</style></head>
<body><h1>${esc(document.info.title)}</h1><p>${esc(document.info.description ?? '')}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a>. Authenticate with <code>Authorization: Bearer plt_…</code>.</p>
${rows.join('\n')}</body></html>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
