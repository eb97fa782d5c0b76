/**
 * A URL as error messages show it (they are stored with the execution, shown to every viewer of
 * it, and logged): no credentials, the query's values and the fragment hidden, since a token
 * often rides in the query string (`?api_key=…`); its names are kept to say which request it was.
 */
export function urlForMessages(url: URL): string {
  // A URL without a host (`user:secret@api.example.com`, read as the scheme `user:`) has no
  // parts to keep apart: only its scheme is shown.
  if (url.host === '') return `${url.protocol}…`;
  const names = [...new Set(url.searchParams.keys())];
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  shown.search = '';
  shown.hash = '';
  const query =
    names.length === 0 ? '' : `?${names.map((name) => `${encodeURIComponent(name)}=…`).join('&')}`;
  return `${shown.href}${query}`;
}

/** The same for text that may not parse as a URL (a flow's invalid URL, a redirect's Location). */
export function urlTextForMessages(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url) return urlForMessages(url);
  // Credentials may hold any character, '@' included: everything up to the last '@' goes.
  const at = text.lastIndexOf('@');
  const slashes = text.indexOf('//');
  const withoutCredentials =
    at === -1
      ? text
      : slashes !== -1 && slashes < at
        ? text.slice(0, slashes + 2) + text.slice(at + 1)
        : text.slice(at + 1);
  return withoutCredentials.replace(/([?&][^=&#]*)=[^&#]*/g, '$1=…').replace(/#.*$/s, '');
}
