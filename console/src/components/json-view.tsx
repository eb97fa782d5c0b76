import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { copyText } from './copy-id';

const MAX_ITEMS = 200;

/**
 * A collapsible JSON viewer: objects and arrays are <details> (keyboard and screen-reader
 * friendly without script), children rendered only once opened, so a large output costs nothing
 * until someone looks. Levels above `openDepth` start open.
 */
export function JsonView({
  value,
  label,
  openDepth = 1,
}: {
  value: unknown;
  label?: string;
  openDepth?: number;
}) {
  return (
    <div class="json" aria-label={label}>
      <div class="json-tools">
        <button
          type="button"
          class="link-button small"
          onClick={() => void copyText(JSON.stringify(value, null, 2))}
          aria-label={label ? `Copy JSON of ${label}` : 'Copy JSON'}
        >
          Copy JSON
        </button>
      </div>
      <JsonNode value={value} depth={0} openDepth={openDepth} name={null} />
    </div>
  );
}

function JsonNode(props: {
  value: unknown;
  depth: number;
  openDepth: number;
  name: string | null;
}) {
  const { value, name } = props;
  const key =
    name === null ? null : (
      <span class="json-key">
        {name}
        <span aria-hidden="true">: </span>
      </span>
    );
  if (value === null || typeof value !== 'object')
    return (
      <div class="json-leaf">
        {key}
        <Scalar value={value} />
      </div>
    );
  return <JsonBranch {...props} value={value} keyNode={key} />;
}

function JsonBranch(props: {
  value: object;
  depth: number;
  openDepth: number;
  keyNode: JSX.Element | null;
}) {
  const { value, depth, openDepth, keyNode } = props;
  const [open, setOpen] = useState(depth < openDepth);
  const entries: Array<readonly [string, unknown]> = Array.isArray(value)
    ? (value as unknown[]).map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  const brackets = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const noun = `${Array.isArray(value) ? 'item' : 'key'}${entries.length === 1 ? '' : 's'}`;
  const summary = `${brackets[0]}${entries.length === 0 ? '' : ` ${entries.length} ${noun} `}${brackets[1]}`;
  if (entries.length === 0)
    return (
      <div class="json-leaf">
        {keyNode}
        <span class="json-punct">{summary}</span>
      </div>
    );
  return (
    <details class="json-branch" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        {keyNode}
        <span class="json-punct">{summary}</span>
      </summary>
      {open ? (
        <div class="json-children">
          {entries.slice(0, MAX_ITEMS).map(([k, v]) => (
            <JsonNode key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > MAX_ITEMS ? (
            <div class="muted small">
              … {entries.length - MAX_ITEMS} more (copy the JSON to see all)
            </div>
          ) : null}
        </div>
      ) : null}
    </details>
  );
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === 'string') return <span class="json-string">"{value}"</span>;
  if (typeof value === 'number') return <span class="json-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span class="json-bool">{String(value)}</span>;
  if (value === undefined) return <span class="json-null">undefined</span>;
  return <span class="json-null">null</span>;
}
