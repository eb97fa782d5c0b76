import { useEffect, useRef } from 'preact/hooks';
import { GO_KEYS } from './shortcuts';

/** `?`: the keyboard shortcuts, in a modal <dialog> (Escape closes it, focus returns). */
export function HelpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="help-title" onClose={onClose}>
      <h2 id="help-title">Keyboard shortcuts</h2>
      <table class="plain">
        <tbody>
          {GO_KEYS.map(([key, , label]) => (
            <tr key={key}>
              <td>
                <kbd>g</kbd> <kbd>{key}</kbd>
              </td>
              <td>{label}</td>
            </tr>
          ))}
          <tr>
            <td>
              <kbd>/</kbd>
            </td>
            <td>Focus the page’s filter</td>
          </tr>
          <tr>
            <td>
              <kbd>j</kbd> <kbd>k</kbd>
            </td>
            <td>Next / previous row</td>
          </tr>
          <tr>
            <td>
              <kbd>?</kbd>
            </td>
            <td>This help</td>
          </tr>
        </tbody>
      </table>
      <form method="dialog">
        <button type="submit" class="button">
          Close
        </button>
      </form>
    </dialog>
  );
}
