import { useEffect } from 'preact/hooks';

/** The tab's title follows the page (history entries and screen readers name it). */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · plaita` : 'plaita console';
  }, [title]);
}
