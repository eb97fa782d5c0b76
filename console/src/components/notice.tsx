import { useEffect, useState } from 'preact/hooks';

/** Short confirmations ("retry requested") in one polite live region at the bottom. */
type Tone = 'ok' | 'error';
let push: ((text: string, tone: Tone) => void) | null = null;

export function notify(text: string, tone: Tone = 'ok'): void {
  push?.(text, tone);
}

export function Notices() {
  const [items, setItems] = useState<Array<{ id: number; text: string; tone: Tone }>>([]);
  useEffect(() => {
    let next = 0;
    push = (text, tone) => {
      const id = ++next;
      setItems((list) => [...list.slice(-3), { id, text, tone }]);
      window.setTimeout(() => setItems((list) => list.filter((i) => i.id !== id)), 5000);
    };
    return () => {
      push = null;
    };
  }, []);
  return (
    <div class="notices" role="status" aria-live="polite">
      {items.map((item) => (
        <div key={item.id} class={`notice notice-${item.tone}`}>
          {item.text}
        </div>
      ))}
    </div>
  );
}
