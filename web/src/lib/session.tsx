import type { OrganizationData, UserInfo } from '@osint/contract/api-types';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { api, ApiError, setUnauthorizedListener } from './api-client.ts';

export const SESSION_QUERY_KEY = ['session'] as const;

export interface SessionState {
  user: UserInfo;
  organization: OrganizationData;
}

interface SessionContextValue {
  /** undefined while the first answer is pending, null when signed out. */
  session: SessionState | null | undefined;
  login(mail: string, password: string): Promise<void>;
  logout(): Promise<void>;
  /** Fetches user info again (routes flagged to refresh do this on entry). */
  refresh(): Promise<void>;
}

const SessionContext = createContext<SessionContextValue | undefined>(undefined);

/** User info, then organization data: the two calls spec 000 §4 makes after a login. */
async function fetchSession(): Promise<SessionState | null> {
  try {
    const user = await api<UserInfo>('/user/user-info', { expectUnauthorized: true });
    const organization = await api<OrganizationData>('/user/organization', { expectUnauthorized: true });
    return { user, organization };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export function SessionProvider({ children, onSignedOut }: { children: ReactNode; onSignedOut: () => void }) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: SESSION_QUERY_KEY,
    queryFn: fetchSession,
    staleTime: Infinity,
    retry: 1,
  });

  const clear = useCallback(() => {
    // Signing out forgets every server answer: nothing of one account may show in the next.
    queryClient.setQueryData(SESSION_QUERY_KEY, null);
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_QUERY_KEY[0] });
  }, [queryClient]);

  useEffect(() => {
    setUnauthorizedListener(() => {
      if (queryClient.getQueryData(SESSION_QUERY_KEY)) {
        clear();
        onSignedOut();
      }
    });
    return () => setUnauthorizedListener(undefined);
  }, [queryClient, clear, onSignedOut]);

  const value = useMemo<SessionContextValue>(
    () => ({
      session: query.isPending ? undefined : query.isError ? null : query.data,
      login: async (mail, password) => {
        await api('/user/login', { method: 'POST', body: { mail, password }, expectUnauthorized: true });
        try {
          const session = await fetchSession();
          queryClient.setQueryData(SESSION_QUERY_KEY, session);
        } catch (error) {
          clear();
          if (!(error instanceof ApiError && error.status === 401)) throw error;
        }
      },
      logout: async () => {
        try {
          await api('/user/logout', { method: 'POST', expectUnauthorized: true });
        } catch (error) {
          console.error('Logout failed', error);
          throw error;
        } finally {
          clear();
        }
      },
      refresh: async () => {
        await queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
      },
    }),
    [query.isPending, query.isError, query.data, queryClient, clear],
  );

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
