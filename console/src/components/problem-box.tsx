import { ApiError, messageOf } from '../api/client';

/** A failed request, in words, with the request id to quote. */
export function ProblemBox({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const requestId = error instanceof ApiError ? error.requestId : null;
  const errors = error instanceof ApiError ? error.errors : [];
  return (
    <div class="problem" role="alert">
      <strong>{title ?? 'Something went wrong'}:</strong> {messageOf(error)}
      {errors.length > 0 ? (
        <ul>
          {errors.map((e) => (
            <li key={e.path + e.message}>
              <code>{e.path}</code> {e.message}
            </li>
          ))}
        </ul>
      ) : null}
      {requestId ? <div class="muted small">request id {requestId}</div> : null}
    </div>
  );
}

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <p class="muted loading" role="status">
      {label}…
    </p>
  );
}

/**
 * A page whose object could not be read: a heading saying which (gone, or the server did not
 * answer), the reason, a way back, and a retry when trying again can help.
 */
export function LoadFailed(props: {
  what: string;
  error: unknown;
  back: { href: string; label: string };
  retry?: () => void;
  /** Said when it is not found: where else to look. */
  whenMissing?: string;
}) {
  const missing = props.error instanceof ApiError && props.error.status === 404;
  return (
    <section aria-labelledby="load-failed-title">
      <h1 id="load-failed-title">
        {missing ? `${props.what} not found` : `${props.what} could not be loaded`}
      </h1>
      <ProblemBox error={props.error} title={missing ? 'Not found' : 'The server did not answer'} />
      {missing && props.whenMissing ? <p>{props.whenMissing}</p> : null}
      <p>
        <a class="underlined" href={props.back.href}>
          {props.back.label}
        </a>
        {!missing && props.retry ? (
          <>
            {' '}
            <button type="button" class="button small" onClick={props.retry}>
              Try again
            </button>
          </>
        ) : null}
      </p>
    </section>
  );
}
