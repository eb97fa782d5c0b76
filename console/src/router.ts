import { useEffect, useState } from 'preact/hooks';

/**
 * Routing on the History API: every page and filter lives in the URL, so a deep link survives a
 * reload (the server answers index.html for every console path).
 */
export interface Location {
  path: string;
  query: URLSearchParams;
}

const subscribers = new Set<() => void>();

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

function notify(): void {
  for (const s of subscribers) s();
}

window.addEventListener('popstate', notify);

/** Goes to `href` (a path with an optional query); `replace` keeps the history entry. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  const target = new URL(href, window.location.origin);
  const next = target.pathname + target.search;
  if (next === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', next);
  else window.history.pushState(null, '', next);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    subscribers.add(update);
    return () => void subscribers.delete(update);
  }, []);
  return location;
}

/** Replaces some query parameters of the current URL (empty values are dropped). */
export function setQuery(changes: Record<string, string | null | undefined>, replace = true): void {
  const query = new URLSearchParams(window.location.search);
  for (const [key, value] of Object.entries(changes))
    if (value === null || value === undefined || value === '') query.delete(key);
    else query.set(key, value);
  const text = query.toString();
  navigate(`${window.location.pathname}${text ? `?${text}` : ''}`, { replace });
}

/** Matches `/executions/:id` style patterns; returns the decoded parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  const want = trim(pattern).split('/');
  const got = trim(path).split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    const g = got[i] ?? '';
    if (w.startsWith(':')) {
      if (g === '') return null;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) return null;
  }
  return params;
}

/** Internal links: a plain left click navigates in place; other clicks do what the browser does. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest('a');
  if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
  const href = anchor.getAttribute('href');
  if (!href || !href.startsWith('/') || href.startsWith('//')) return;
  if (/^\/(v1|docs|openapi\.json)(\/|$|\?)/.test(href)) return;
  event.preventDefault();
  navigate(href);
}
