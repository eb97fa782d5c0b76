import type { ExecutionStatus, NodeStatus } from '../api/types';

type Status = ExecutionStatus | NodeStatus | 'pinned' | 'not reached' | 'draft' | 'published';

/** A glyph beside the word, so a status never depends on colour alone. */
const GLYPH: Record<Status, string> = {
  queued: '◷',
  running: '▶',
  waiting: '‖',
  completed: '✓',
  done: '✓',
  published: '✓',
  pinned: '◉',
  error: '✕',
  failed: '✕',
  cancelled: '⊘',
  'not reached': '○',
  draft: '✎',
};

/** A status as a badge: text AND colour (the word is what a screen reader reads). */
export function StatusBadge({ status }: { status: Status }) {
  return (
    <span class={`badge badge-${status.replace(' ', '-')}`}>
      <span aria-hidden="true">{GLYPH[status]}</span> {status}
    </span>
  );
}
