import type { ComponentType } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, onUnauthorized, prefetch, seg } from './api/client';
import type { Caller } from './api/types';
import { LoadFailed, Loading, ProblemBox } from './components/problem-box';
import { Notices } from './components/notice';
import { HeaderControls } from './header-controls';
import { HelpDialog } from './help-dialog';
import { ExecutionsPage, listQuery } from './pages/executions';
import { SignIn } from './pages/sign-in';
import { match, onLinkClick, useLocation } from './router';
import { can, SessionContext } from './session';
import { installShortcuts } from './shortcuts';
import { useTitle } from './use-title';

type PageModule = { default: ComponentType<{ params: Record<string, string> }> };
type Loader = () => Promise<PageModule>;

/** Pages other than the executions list load on demand (the graph and chart libraries too). */
const load = {
  overview: () => import('./pages/overview'),
  execution: () => import('./pages/execution'),
  approvals: () => import('./pages/approvals'),
  flows: () => import('./pages/flows'),
  flow: () => import('./pages/flow'),
  schedules: () => import('./pages/schedules'),
  deadLetters: () => import('./pages/dead-letters'),
  workers: () => import('./pages/workers'),
  apiKeys: () => import('./pages/api-keys'),
  audit: () => import('./pages/audit'),
} satisfies Record<string, Loader>;

const ROUTES: ReadonlyArray<readonly [string, Loader | 'executions']> = [
  ['/', load.overview],
  ['/executions', 'executions'],
  ['/executions/:id', load.execution],
  ['/approvals', load.approvals],
  ['/flows', load.flows],
  ['/flows/new', load.flow],
  ['/flows/:flowId', load.flow],
  ['/schedules', load.schedules],
  ['/schedules/new', load.schedules],
  ['/schedules/:id', load.schedules],
  ['/dead-letters', load.deadLetters],
  ['/workers', load.workers],
  ['/api-keys', load.apiKeys],
  ['/audit', load.audit],
];

/**
 * At boot, before the session answer: asks for the session, the first data of the page the URL
 * names, and its code, all at once (the page then finds them started, see `prefetch`).
 */
export function warmUp(): void {
  const path = window.location.pathname;
  prefetch('/v1/sessions/current');
  if (match('/executions', path))
    prefetch('/v1/executions', listQuery(new URLSearchParams(window.location.search)));
  const execution = match('/executions/:id', path);
  if (execution?.id) {
    prefetch(`/v1/executions/${seg(execution.id)}`);
    prefetch(`/v1/executions/${seg(execution.id)}/flow`);
  }
  for (const [pattern, target] of ROUTES)
    if (target !== 'executions' && match(pattern, path === '' ? '/' : path)) {
      void target().catch(() => undefined);
      break;
    }
}

const NAV: ReadonlyArray<{ href: string; label: string; admin?: boolean }> = [
  { href: '/', label: 'Overview' },
  { href: '/executions', label: 'Executions' },
  { href: '/approvals', label: 'Approvals' },
  { href: '/flows', label: 'Flows' },
  { href: '/schedules', label: 'Schedules' },
  { href: '/dead-letters', label: 'Dead letters' },
  { href: '/workers', label: 'Workers' },
  { href: '/api-keys', label: 'API keys', admin: true },
  { href: '/audit', label: 'Audit log', admin: true },
];

export function App() {
  const [caller, setCaller] = useState<Caller | null | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(null);
  const [helpOpen, setHelpOpen] = useState(false);

  const refreshSession = () => {
    api.get<Caller>('/v1/sessions/current').then(
      (who) => {
        setProblem(null);
        setCaller(who);
      },
      (error: { status?: number }) => {
        if (error.status === 401) {
          setProblem(null);
          setCaller(null);
        } else setProblem(error);
      },
    );
  };

  useEffect(refreshSession, []);
  useEffect(() => onUnauthorized(() => setCaller(null)), []);
  useEffect(() => installShortcuts(() => setHelpOpen(true)), []);

  // Also right after signing in (caller null): a 503 or 429 on reading the new session must
  // say so, not quietly show the sign-in form again.
  if (problem && !caller)
    return (
      <main class="signin-page">
        <ProblemBox error={problem} title="The server did not answer" />
        <button type="button" class="button" onClick={refreshSession}>
          Try again
        </button>
      </main>
    );
  if (caller === undefined) return <Loading label="Connecting" />;
  if (caller === null)
    return (
      <SignIn
        onSignedIn={() => {
          setProblem(null);
          refreshSession();
        }}
      />
    );

  return (
    <SessionContext.Provider value={caller}>
      <Shell
        caller={caller}
        onSignedOut={() => setCaller(null)}
        openHelp={() => setHelpOpen(true)}
      />
      <HelpDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
      <Notices />
    </SessionContext.Provider>
  );
}

function Shell(props: { caller: Caller; onSignedOut: () => void; openHelp: () => void }) {
  const location = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    // After a navigation, focus the page (a screen reader announces the new heading).
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus({ preventScroll: true });
  }, [location.path]);
  const section = '/' + (location.path.split('/')[1] ?? '');
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/" aria-label="plaita console, overview">
          <span class="brand-mark" aria-hidden="true">
            ◆
          </span>{' '}
          plaita
        </a>
        <HeaderControls
          caller={props.caller}
          onSignedOut={props.onSignedOut}
          openHelp={props.openHelp}
        />
      </header>
      <nav class="sidenav" aria-label="Main">
        <ul>
          {NAV.filter((item) => !item.admin || can(props.caller, 'admin')).map((item) => (
            <li key={item.href}>
              <a href={item.href} aria-current={section === item.href ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <Route path={location.path} />
      </main>
    </div>
  );
}

function Route({ path }: { path: string }) {
  for (const [pattern, target] of ROUTES) {
    const params = match(pattern, path === '' ? '/' : path);
    if (!params) continue;
    if (target === 'executions') return <ExecutionsPage />;
    return <LazyPage key={pattern} loader={target} params={params} />;
  }
  return <NotFound path={path} />;
}

function NotFound({ path }: { path: string }) {
  useTitle('Not found');
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing lives at <code>{path}</code>.{' '}
        <a class="underlined" href="/">
          Back to the overview
        </a>
        .
      </p>
    </section>
  );
}

const loaded = new Map<Loader, PageModule>();

function LazyPage({ loader, params }: { loader: Loader; params: Record<string, string> }) {
  const [module, setModule] = useState<PageModule | undefined>(loaded.get(loader));
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (module) return;
    loader().then(
      (m) => {
        loaded.set(loader, m);
        setModule(m);
      },
      (e: unknown) => setError(e),
    );
  }, [loader, module, attempt]);
  if (error)
    return (
      <LoadFailed
        what="This page"
        error={error}
        back={{ href: '/', label: 'Back to the overview' }}
        retry={() => {
          setError(null);
          setAttempt((n) => n + 1);
        }}
      />
    );
  if (!module) return <Loading />;
  const Page = module.default;
  return <Page params={params} />;
}
