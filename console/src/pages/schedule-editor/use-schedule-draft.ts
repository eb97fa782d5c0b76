import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, seg } from '../../api/client';
import type { Schedule } from '../../api/types';
import { notify } from '../../components/notice';
import { draftOf, EMPTY, type Draft } from './schedule-draft';

/**
 * The schedule being edited (`id`) or created (null): the form's draft, the schedule as stored
 * (its runs), and `reload` to read it again after a fire without touching an edit under way.
 */
export function useScheduleDraft(id: string | null) {
  const [draft, setDraft] = useState<Draft | null>(id ? null : EMPTY);
  const [stored, setStored] = useState<Schedule | null>(null);
  const [loads, setLoads] = useState(0);
  const [loadError, setLoadError] = useState<unknown>(null);

  useEffect(() => {
    if (!id) return;
    api.get<Schedule>(`/v1/schedules/${seg(id)}`).then(
      (s) => {
        setStored(s);
        // A reload after firing refreshes the runs, never an edit under way.
        if (loads === 0) setDraft(draftOf(s));
      },
      (error: unknown) => {
        // A refresh that fails after a fire keeps the form (and any edit under way).
        if (loads === 0) setLoadError(error);
        else notify(messageOf(error), 'error');
      },
    );
  }, [id, loads]);

  return {
    draft,
    setDraft,
    stored,
    setStored,
    loadError,
    reload: () => setLoads((n) => n + 1),
  };
}
