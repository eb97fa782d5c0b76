import { useState } from 'preact/hooks';
import { shortId } from '../format';

/** Copies text to the clipboard, falling back to a hidden textarea where the API is refused. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

/** A monospace id with a copy button; `href` makes the id a link. */
export function CopyId({ id, href, short }: { id: string; href?: string; short?: boolean }) {
  const [copied, setCopied] = useState(false);
  const text = short ? shortId(id) : id;
  const copy = async () => {
    await copyText(id);
    setCopied(true);
    window.setTimeout(() => setCopied(false), 1500);
  };
  return (
    <span class="copy-id">
      {href ? (
        <a class="mono" href={href} title={id}>
          {text}
        </a>
      ) : (
        <code class="mono" title={id}>
          {text}
        </code>
      )}
      <button
        type="button"
        class="icon-button"
        aria-label={`Copy ${id}`}
        title="Copy"
        onClick={() => void copy()}
      >
        {copied ? <span aria-hidden="true">✓</span> : <CopyIcon />}
      </button>
      {copied ? (
        <span class="visually-hidden" role="status">
          copied
        </span>
      ) : null}
    </span>
  );
}

/** Two overlapping sheets, drawn (no font has to carry a copy glyph). */
function CopyIcon() {
  return (
    <svg
      aria-hidden="true"
      width="14"
      height="14"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      stroke-width="1.5"
    >
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
      <path d="M3.5 10.5h-1a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1h7a1 1 0 0 1 1 1v1" />
    </svg>
  );
}
