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
