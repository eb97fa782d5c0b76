import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { Schedule } from '../../api/types';
import { notify } from '../../components/notice';
import { navigate } from '../../router';
import { bodyOf, errorsOf, type Draft, type DraftErrors } from './schedule-draft';

/** Creates (`id` null) or saves the schedule, then shows its page; refusals go on the fields. */
export function useScheduleSave(id: string | null, onSaved: (saved: Schedule) => void) {
  const [errors, setErrors] = useState<DraftErrors>({});
  const [busy, setBusy] = useState(false);
  const save = async (draft: Draft) => {
    const request = bodyOf(draft);
    if ('errors' in request) {
      setErrors(request.errors);
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      const saved = id
        ? await api.patch<Schedule>(`/v1/schedules/${seg(id)}`, request.body)
        : await api.post<Schedule>('/v1/schedules', request.body);
      notify(id ? 'Schedule saved' : 'Schedule created');
      onSaved(saved);
      navigate(`/schedules/${seg(saved.id)}`, { replace: !id });
    } catch (e) {
      setErrors(errorsOf(e));
    } finally {
      setBusy(false);
    }
  };
  return { save, errors, busy };
}
