import { navigate } from './router';

/** `g` then a letter: where it goes (also listed in the help dialog). */
export const GO_KEYS: ReadonlyArray<readonly [string, string, string]> = [
  ['o', '/', 'Overview'],
  ['e', '/executions', 'Executions'],
  ['a', '/approvals', 'Approvals'],
  ['f', '/flows', 'Flows'],
  ['s', '/schedules', 'Schedules'],
  ['d', '/dead-letters', 'Dead letters'],
  ['w', '/workers', 'Workers'],
  ['k', '/api-keys', 'API keys'],
  ['l', '/audit', 'Audit log'],
];

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

/** Moves focus to the first link or button of the next/previous table row (j / k). */
function moveRow(step: 1 | -1): void {
  const rows = [...document.querySelectorAll<HTMLElement>('main tbody tr')];
  if (rows.length === 0) return;
  const current = rows.findIndex((row) => row.contains(document.activeElement));
  const next = rows[Math.min(rows.length - 1, Math.max(0, current === -1 ? 0 : current + step))];
  next?.querySelector<HTMLElement>('a, button, input')?.focus();
}

/**
 * Keyboard navigation: `g e` executions (and the other `g` keys), `/` focuses the page's filter,
 * `j`/`k` move between table rows, `?` opens the help. Keys typed into a field are left alone.
 */
export function installShortcuts(openHelp: () => void): () => void {
  let pendingG = 0;
  const onKey = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey) return;
    if (typing(event.target)) return;
    if (pendingG && Date.now() - pendingG < 1500) {
      pendingG = 0;
      const target = GO_KEYS.find(([key]) => key === event.key);
      if (target) {
        event.preventDefault();
        navigate(target[1]);
        return;
      }
    }
    switch (event.key) {
      case 'g':
        pendingG = Date.now();
        return;
      case '/': {
        const filter = document.querySelector<HTMLElement>('[data-filter]');
        if (filter) {
          event.preventDefault();
          filter.focus();
        }
        return;
      }
      case '?':
        event.preventDefault();
        openHelp();
        return;
      case 'j':
        moveRow(1);
        return;
      case 'k':
        moveRow(-1);
        return;
      default:
        return;
    }
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
