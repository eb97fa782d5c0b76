import { useEffect, useState } from 'preact/hooks';

/**
 * Display preferences, kept in localStorage. Preferences only: the API key never goes there
 * (the session is an HttpOnly cookie the page cannot read).
 */
export type TimeMode = 'utc' | 'local' | 'relative';
export type Theme = 'system' | 'light' | 'dark';

export interface Prefs {
  time: TimeMode;
  theme: Theme;
}

const STORAGE_KEY = 'plaita.console.prefs';
const DEFAULTS: Prefs = { time: 'local', theme: 'system' };

function read(): Prefs {
  try {
    const raw = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<Prefs>;
    return {
      time:
        raw.time === 'utc' || raw.time === 'relative'
          ? raw.time
          : raw.time === 'local'
            ? 'local'
            : DEFAULTS.time,
      theme: raw.theme === 'light' || raw.theme === 'dark' ? raw.theme : 'system',
    };
  } catch {
    return DEFAULTS;
  }
}

let prefs = read();
const subscribers = new Set<() => void>();

export function getPrefs(): Prefs {
  return prefs;
}

export function setPrefs(changes: Partial<Prefs>): void {
  prefs = { ...prefs, ...changes };
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(prefs));
  } catch {
    // private mode: the choice lasts for this page only
  }
  applyTheme();
  for (const s of subscribers) s();
}

export function usePrefs(): Prefs {
  const [value, setValue] = useState(prefs);
  useEffect(() => {
    const update = () => setValue(prefs);
    subscribers.add(update);
    return () => void subscribers.delete(update);
  }, []);
  return value;
}

/** `data-theme` on <html>: absent follows prefers-color-scheme. */
export function applyTheme(): void {
  const root = document.documentElement;
  if (prefs.theme === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', prefs.theme);
}

export function effectiveTheme(): 'light' | 'dark' {
  if (prefs.theme !== 'system') return prefs.theme;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
