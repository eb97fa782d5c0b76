import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Caller, Role } from './api/types';

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The signed-in caller (`GET /v1/sessions/current`): pages hide what its role cannot do. */
export const SessionContext = createContext<Caller | null>(null);

export function useCaller(): Caller | null {
  return useContext(SessionContext);
}

export function can(caller: Caller | null, role: Role): boolean {
  return caller !== null && RANK[caller.role] >= RANK[role];
}
