import { useState } from 'react';
import { useQuery } from 'urql';
import { GrantsQuery } from '../api/documents';
import { errorText } from '../api/errors';
import { canDecide, type Me } from '../auth/session';
import { grantsHref } from '../route';
import { GrantRow } from './grant-row';

/**
 * `#/grants?user=…&run=…`: the standing approvals made with RUN and ALWAYS, who made them and
 * when, with a Revoke button: after it the next matching call asks again.
 */
export function GrantsPage({ me, userId, runId }: { me: Me; userId: string | null; runId: string | null }) {
  const [includeRevoked, setIncludeRevoked] = useState(false);
  const [user, setUser] = useState(userId ?? '');
  const [run, setRun] = useState(runId ?? '');
  const [result, refetch] = useQuery({
    query: GrantsQuery,
    variables: { userId, runId, includeRevoked },
    requestPolicy: 'network-only',
  });
  const grants = result.data?.grants ?? [];
  return (
    <main className="grants-page" data-testid="grants-page">
      <div className="queue-head">
        <h1>
          Grants{' '}
          <span className="count" data-testid="grants-count">
            {grants.length}
          </span>
        </h1>
        <form
          className="filters"
          onSubmit={(e) => {
            e.preventDefault();
            window.location.hash = grantsHref({ userId: user.trim(), runId: run.trim() });
          }}
        >
          <input
            aria-label="user"
            placeholder="user"
            value={user}
            onChange={(e) => setUser(e.target.value)}
          />
          <input aria-label="run" placeholder="run" value={run} onChange={(e) => setRun(e.target.value)} />
          <label>
            <input
              type="checkbox"
              data-testid="grants-include-revoked"
              checked={includeRevoked}
              onChange={(e) => setIncludeRevoked(e.target.checked)}
            />{' '}
            revoked too
          </label>
          <button type="submit">Show</button>
        </form>
      </div>
      {result.error && (
        <p className="error" role="alert">
          {errorText(result.error)}
        </p>
      )}
      <table className="grants" data-testid="grants">
        <thead>
          <tr>
            <th>scope</th>
            <th>tool</th>
            <th>conditions</th>
            <th>for</th>
            <th>made</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {grants.map((grant) => (
            <GrantRow
              key={grant.id}
              grant={grant}
              revokes={canDecide(me)}
              onRevoked={() => refetch({ requestPolicy: 'network-only' })}
            />
          ))}
        </tbody>
      </table>
      {grants.length === 0 && !result.fetching && (
        <p className="empty" data-testid="grants-empty">
          No {includeRevoked ? '' : 'standing '}grants{userId || runId ? ' with these filters' : ''}.
        </p>
      )}
    </main>
  );
}
