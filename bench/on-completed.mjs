// Counts finished executions the way an operator would see them: a `completed` checkpoint
// stored. Not an engine hook: a hook is host code in every step, and a worker with hooks set
// saves the start of even an inert first node before running it (docs/durable-runtime.md).
export function onCompleted(store, callback) {
  const save = store.save.bind(store);
  store.save = (state, options) => {
    const saved = save(state, options);
    if (state.status === 'completed')
      void saved.then(
        () => callback(state),
        () => undefined,
      );
    return saved;
  };
}
