import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { Provider } from 'urql';
import { createUrqlClient, GRAPHQL_ENDPOINT } from './api/client';
import { Connection } from './api/connection';
import { finishSignIn, idpSignOutUrl, isCallback, loadSignInConfig, startSignIn } from './auth/idp';
import {
  describeToken,
  forgetToken,
  type IdpTokenInfo,
  type Me,
  signedInAs,
  storedIdpInfo,
  storedToken,
  storeIdpSession,
  storeToken,
  whoIs,
} from './auth/session';
import { SessionEnd, sessionEndedMessage, useSessionEnd } from './auth/session-end';
import { SignIn } from './auth/sign-in';
import { CallPage } from './calls/call-page';
import { GrantsPage } from './grants/grants-page';
import type { SignInConfig } from './logic/oidc';
import { QueuePage } from './queue/queue-page';
import { grantsHref, parseRoute, type Route, useHash } from './route';
import { RunView } from './run/run-view';
import { TurnPage } from './turns/turn-page';

type Session = { token: string; me: Me; idp: IdpTokenInfo | null };

const messageOf = (error: unknown) => `Sign-in with the IdP failed: ${(error as Error).message}`;

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [checking, setChecking] = useState(() => storedToken() !== null || isCallback());
  const [error, setError] = useState<string | null>(null);
  const [idp, setIdp] = useState<SignInConfig | null | undefined>(undefined);

  const signIn = useCallback(async (token: string, idpInfo: IdpTokenInfo | null) => {
    setChecking(true);
    const outcome = await whoIs(token);
    setChecking(false);
    if ('me' in outcome) {
      if (idpInfo) storeIdpSession({ token, ...idpInfo });
      else storeToken(token);
      setError(null);
      setSession({ token, me: outcome.me, idp: idpInfo });
    } else {
      forgetToken();
      // The server refuses an IdP token from its exp on, maybe before the page's own timer fires.
      const ended = idpInfo?.expiresAt != null && idpInfo.expiresAt <= Date.now();
      setError(ended ? sessionEndedMessage(idpInfo.expiresAt!) : outcome.error);
      setSession(null);
    }
  }, []);

  useEffect(() => {
    const token = storedToken();
    if (token && !isCallback()) void signIn(token, storedIdpInfo());
    loadSignInConfig()
      .then(
        async (config) => {
          setIdp(config);
          if (!isCallback()) return;
          if (!config) throw new Error('this server has no IdP configured');
          const { token: idpToken, ...info } = await finishSignIn(config);
          await signIn(idpToken, info);
        },
        () => {
          setIdp(null);
          if (isCallback()) throw new Error('the server did not say which IdP it signs in with');
        },
      )
      .catch((failure: unknown) => {
        setChecking(false);
        setError(messageOf(failure));
      });
  }, [signIn]);

  const signOut = useCallback(
    (reason: string | null = null) => {
      const idpInfo = storedIdpInfo();
      forgetToken();
      setError(reason);
      setSession(null);
      // Only a person's own sign-out ends the IdP's session too; an ended or refused token does not.
      if (reason === null && idpInfo && idp)
        void idpSignOutUrl(idp, idpInfo.idToken).then(
          (url) => url && location.assign(url),
          (failure: unknown) =>
            setError(`Signed out here; the IdP's sign-out failed: ${(failure as Error).message}`),
        );
    },
    [idp],
  );

  const recheck = useCallback(() => {
    const token = storedToken();
    if (token) void signIn(token, storedIdpInfo());
  }, [signIn]);

  const goToIdp = useCallback(() => {
    if (idp) startSignIn(idp).catch((failure: unknown) => setError(messageOf(failure)));
  }, [idp]);

  if (checking && !session) return <p className="loading">Signing in…</p>;
  if (!session)
    return <SignIn onToken={(token) => void signIn(token, null)} onIdp={goToIdp} idp={idp} error={error} />;
  return <SignedIn session={session} onSignOut={signOut} onRecheck={recheck} />;
}

function SignedIn({
  session,
  onSignOut,
  onRecheck,
}: {
  session: Session;
  onSignOut: (reason?: string | null) => void;
  onRecheck: () => void;
}) {
  useSessionEnd(session.idp?.expiresAt ?? null, onSignOut);
  const connection = useMemo(
    () => new Connection(GRAPHQL_ENDPOINT, session.token, onRecheck),
    [session.token, onRecheck],
  );
  useEffect(() => () => connection.dispose(), [connection]);
  const client = useMemo(() => createUrqlClient(session.token, connection), [session.token, connection]);
  const route = parseRoute(useHash());

  return (
    <Provider value={client}>
      <header className="top">
        <a className="brand" href="#/">
          Approvals
        </a>
        <nav>
          <a href="#/" aria-current={route.page === 'queue' ? 'page' : undefined}>
            Queue
          </a>
          <a href={grantsHref({})} aria-current={route.page === 'grants' ? 'page' : undefined}>
            Grants
          </a>
          <a href="/graphql" target="_blank" rel="noreferrer">
            GraphiQL
          </a>
        </nav>
        <ConnectionBadge connection={connection} />
        <span className="whoami" data-testid="whoami" title={signedInAs(session.me)}>
          {describeToken(session.me)}
        </span>
        {session.idp?.expiresAt != null && <SessionEnd expiresAt={session.idp.expiresAt} />}
        <button type="button" className="quiet" data-testid="sign-out" onClick={() => onSignOut()}>
          Sign out
        </button>
      </header>
      <Page route={route} me={session.me} connection={connection} />
    </Provider>
  );
}

function Page({ route, me, connection }: { route: Route; me: Me; connection: Connection }) {
  switch (route.page) {
    case 'run':
      return <RunView key={route.runId} runId={route.runId} me={me} connection={connection} />;
    case 'call':
      return (
        <CallPage key={`${route.callId} ${route.link}`} callId={route.callId} link={route.link} me={me} />
      );
    case 'turn':
      return <TurnPage key={route.turnId} turnId={route.turnId} me={me} />;
    case 'grants':
      return (
        <GrantsPage
          key={`${route.userId} ${route.runId}`}
          me={me}
          userId={route.userId}
          runId={route.runId}
        />
      );
    case 'queue':
      return <QueuePage me={me} search={route.search} />;
  }
}

const stateLabel = {
  connected: 'live',
  reconnecting: 'reconnecting…',
  offline: 'offline, retrying',
} as const;

function ConnectionBadge({ connection }: { connection: Connection }) {
  const state = useSyncExternalStore(connection.subscribeState, () => connection.state);
  const transport = useSyncExternalStore(connection.subscribeState, () => connection.transport);
  return (
    <span
      className={`connection ${state}`}
      data-testid="connection-state"
      data-state={state}
      title={`over ${transport === 'sse' ? 'server-sent events (WebSockets failed)' : 'WebSocket'}`}
    >
      {stateLabel[state]}
      {transport === 'sse' && state === 'connected' ? ' (SSE)' : ''}
    </span>
  );
}
