import type { ComponentChildren } from 'preact';

let counter = 0;
/** A stable id per field instance (labels and error messages point at it). */
export function fieldId(name: string): string {
  counter += 1;
  return `f-${name}-${counter}`;
}

/**
 * A labelled control with its error right beside it: a failed request keeps what was typed and
 * shows the server's message for that field (`aria-invalid`, `aria-describedby`).
 */
export function Field(props: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={`field${props.error ? ' has-error' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** The aria attributes a control inside <Field> needs. */
export function describedBy(id: string, error: string | undefined, hint = false) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    id,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': ids || undefined,
  };
}
