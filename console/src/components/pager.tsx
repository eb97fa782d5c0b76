/** Keyset paging: "Newest" goes back to the first page, "Next" follows nextCursor. */
export function Pager(props: {
  cursor: string | null;
  nextCursor: string | null | undefined;
  onFirst: () => void;
  onNext: (cursor: string) => void;
}) {
  const { cursor, nextCursor } = props;
  if (!cursor && !nextCursor) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="button" disabled={!cursor} onClick={props.onFirst}>
        ⇤ First page
      </button>
      <button
        type="button"
        class="button"
        disabled={!nextCursor}
        onClick={() => nextCursor && props.onNext(nextCursor)}
      >
        Next page →
      </button>
    </nav>
  );
}
