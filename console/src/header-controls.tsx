import { api, ApiError, messageOf } from './api/client';
import { notify } from './components/notice';
import type { Caller } from './api/types';
import { setPrefs, usePrefs, type Theme, type TimeMode } from './prefs';

const TIME_MODES: ReadonlyArray<readonly [TimeMode, string]> = [
  ['utc', 'UTC'],
  ['local', 'Local'],
  ['relative', 'Relative'],
];

const NEXT_THEME: Record<Theme, Theme> = { system: 'dark', dark: 'light', light: 'system' };
const THEME_GLYPH: Record<Theme, string> = { system: '◐', dark: '☾', light: '☀' };
const THEME_LABEL: Record<Theme, string> = { system: 'System', dark: 'Dark', light: 'Light' };

/** The header's switches: time form (UTC/local/relative), theme, the caller, sign-out, help. */
export function HeaderControls(props: {
  caller: Caller;
  onSignedOut: () => void;
  openHelp: () => void;
}) {
  const prefs = usePrefs();
  const signOut = async () => {
    try {
      await api.delete('/v1/sessions/current');
    } catch (e) {
      // Only a session that is already gone counts as signed out: after a 503 or a refusal
      // the cookie still works, and showing the sign-in form would be a lie on a shared machine.
      if (!(e instanceof ApiError && e.status === 401)) {
        notify(`Not signed out: ${e instanceof ApiError ? e.detail : messageOf(e)}`, 'error');
        return;
      }
    }
    props.onSignedOut();
  };
  const who = props.caller.keyId
    ? `${props.caller.role} · ${props.caller.tenant}`
    : 'no auth · admin';
  return (
    <div class="header-controls">
      <fieldset class="segmented" aria-label="Time display">
        <legend class="visually-hidden">Time display</legend>
        {TIME_MODES.map(([mode, label]) => (
          <label key={mode} class={prefs.time === mode ? 'on' : ''}>
            <input
              type="radio"
              name="time-mode"
              value={mode}
              checked={prefs.time === mode}
              onChange={() => setPrefs({ time: mode })}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <button
        type="button"
        class="button ghost"
        data-testid="theme-toggle"
        aria-label={`Theme: ${prefs.theme}. Switch to ${NEXT_THEME[prefs.theme]}`}
        onClick={() => setPrefs({ theme: NEXT_THEME[prefs.theme] })}
      >
        <span aria-hidden="true">{THEME_GLYPH[prefs.theme]}</span>{' '}
        <span class="wide-label">{THEME_LABEL[prefs.theme]}</span>
      </button>
      <span class="caller muted small" title={props.caller.keyId ?? 'auth is off'}>
        {who}
      </span>
      <button
        type="button"
        class="button ghost"
        aria-label="Keyboard shortcuts"
        onClick={props.openHelp}
      >
        ?
      </button>
      {props.caller.keyId ? (
        <button type="button" class="button ghost" onClick={() => void signOut()}>
          Sign out
        </button>
      ) : null}
    </div>
  );
}
