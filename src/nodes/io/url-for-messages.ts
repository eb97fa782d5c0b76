/**
 * A URL as error messages show it (they are stored with the execution, shown to every viewer of
 * it, and logged): the query's values and the fragment hidden, since a token often rides in the
 * query string (`?api_key=…`), its names kept to say which request it was. Credentials never
 * reach here: build-request.ts moves them to a header.
 */
export function urlForMessages(url: URL): string {
  if (url.search === '' && url.hash === '') return url.href;
  const names = [...new Set(url.searchParams.keys())];
  const query =
    names.length === 0 ? '' : `?${names.map((name) => `${encodeURIComponent(name)}=…`).join('&')}`;
  return `${url.origin}${url.pathname}${query}`;
}
