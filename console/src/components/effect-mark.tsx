/**
 * The mark of an effectful node (one that acts on the world, such as an HTTP call or code):
 * a glyph beside the words, never instead of them, so it is hidden from screen readers.
 */
export function EffectMark() {
  return (
    <span class="effect-glyph" aria-hidden="true">
      ϟ
    </span>
  );
}
