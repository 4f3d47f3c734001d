import { useCallback, useEffect, useRef } from 'react';
import { JsonView } from 'react-json-view-lite';
import { useQuery } from 'urql';
import type { Connection } from '../api/connection';
import { RunQuery } from '../api/documents';
import { canDecide, type Me } from '../auth/session';
import type { RunViewQuery } from '../gql/graphql';
import { elapsed, formatDuration, waitedFor } from '../logic/time';
import { callHref } from '../route';
import { ArgumentsView } from '../text/arguments-view';
import { Decider, type Person } from '../text/decider';
import { PolicyReason } from '../text/policy-reason';
import { LookalikeWarnings } from '../text/revealed';
import { useNow } from '../use-now';
import { ContentPart } from './content-part';
import { collapseDeep, jsonStyles } from './json';
import { type JournalEntry, useJournal } from './use-journal';

type Call = NonNullable<RunViewQuery['run']>['toolCalls']['edges'][number]['node'];

const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : '—');
const ms = (value: number | null) =>
  value === null ? '—' : value < 1000 ? `${value} ms` : formatDuration(value);

/** Journal events about calls change what the calls show; one refetch per burst of them. */
const REFETCH_DELAY_MS = 150;

function CallRow({ call, me, now }: { call: Call; me: Me; now: number }) {
  const decision = call.decision;
  const waiting = call.status === 'AWAITING_APPROVAL';
  return (
    <article
      className={`run-call status-${call.status.toLowerCase()}`}
      data-testid="run-call"
      data-call-id={call.id}
      data-status={call.status}
    >
      <header>
        <span className="tool">{call.name}</span>
        <span className={`status status-${call.status.toLowerCase()}`}>{call.status}</span>
        <span className="muted">{call.id}</span>
      </header>
      <dl className="meta">
        <dt>requested</dt>
        <dd>
          {time(call.requestedAt)} by {call.requestedBy}
        </dd>
        <dt>waited</dt>
        <dd data-testid="run-call-waited">
          {waiting
            ? `${waitedFor(call.requestedAt, now)} so far`
            : ms(elapsed(call.requestedAt, call.startedAt ?? call.finishedAt))}
        </dd>
        <dt>ran</dt>
        <dd>{ms(call.result?.usage?.durationMs ?? elapsed(call.startedAt, call.finishedAt))}</dd>
        <dt>attempts</dt>
        <dd>{call.attempts}</dd>
      </dl>
      {waiting && (
        <p className="waiting-action">
          <a className="button-link" data-testid="decide-link" href={callHref(call.id)}>
            {canDecide(me) ? 'Decide this call' : 'Open this call'} →
          </a>
        </p>
      )}
      {call.policyReason && <PolicyReason reason={call.policyReason} />}
      {call.replacedBy && (
        <p data-testid="replaced-by">
          Edited before approval; ran as <a href={callHref(call.replacedBy.id)}>{call.replacedBy.id}</a>
        </p>
      )}
      {call.replaces && (
        <p data-testid="replaces">
          Edited from <a href={callHref(call.replaces.id)}>{call.replaces.id}</a>
        </p>
      )}
      {decision && (
        <p className={`decision ${decision.approved ? 'approved' : 'denied'}`} data-testid="decision">
          {decision.approved ? 'Approved' : 'Denied'} by{' '}
          <Decider actor={decision.decidedBy} person={decision.person} /> at {time(decision.decidedAt)}
          {decision.reason ? `: “${decision.reason}”` : ' (no reason given)'}
        </p>
      )}
      <LookalikeWarnings args={call.arguments} />
      <details className="arguments" open={waiting}>
        <summary>arguments</summary>
        <ArgumentsView value={call.arguments} />
      </details>
      {call.error && (
        <p className="error call-error" data-testid="call-error">
          <span className="badge error-kind">{call.error.kind}</span> <code>{call.error.code}</code>{' '}
          {call.error.message}
        </p>
      )}
      {call.result && (
        <div className={`result${call.result.isError ? ' is-error' : ''}`}>
          {call.result.content.map((part, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: content parts are ordered and have no ids.
            <ContentPart key={index} part={part} />
          ))}
        </div>
      )}
    </article>
  );
}

/** The person the IdP named on a decision's event (`payload.person`), when it came with an IdP token. */
function personIn(payload: unknown): Person | null {
  const person = (payload as { person?: Person } | null)?.person;
  return person && typeof person.displayName === 'string' ? person : null;
}

function JournalRow({ event }: { event: JournalEntry }) {
  return (
    <li className="journal-event" data-testid="journal-event" data-seq={event.seq} data-type={event.type}>
      <span className="seq">#{event.seq}</span>
      <span className="at">{time(event.at)}</span>
      <span className="type">{event.type}</span>
      <span className="actor">
        <Decider actor={event.actor} person={personIn(event.payload)} />
      </span>
      {event.callId && <span className="muted">{event.callId}</span>}
      <details>
        <summary>payload</summary>
        <JsonView data={event.payload as object} shouldExpandNode={collapseDeep} style={jsonStyles} />
      </details>
    </li>
  );
}

export function RunView({ runId, me }: { runId: string; me: Me; connection: Connection }) {
  const now = useNow();
  const [{ data, error, fetching }, refetch] = useQuery({ query: RunQuery, variables: { id: runId } });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onEvent = useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      refetch({ requestPolicy: 'network-only' });
    }, REFETCH_DELAY_MS);
  }, [refetch]);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const journal = useJournal(runId, onEvent);
  const run = data?.run;

  return (
    <main className="run-view" data-testid="run-view" data-run-id={runId}>
      <p>
        <a href="#/">← queue</a>
      </p>
      <h1>
        Run <code>{runId}</code>{' '}
        {run && <span className={`status run-${run.status.toLowerCase()}`}>{run.status}</span>}
      </h1>
      {error && <p className="error">{error.graphQLErrors[0]?.message ?? error.message}</p>}
      {!run && !fetching && !error && <p className="error">No run {runId} that this token may read.</p>}
      {run && (
        <dl className="meta run-meta">
          <dt>user</dt>
          <dd>{run.userId ?? '—'}</dd>
          <dt>profile</dt>
          <dd>{run.profileId ?? '—'}</dd>
          <dt>plan node</dt>
          <dd>{run.planNodeId ?? '—'}</dd>
          <dt>created</dt>
          <dd>
            {time(run.createdAt)} by {run.createdBy}
          </dd>
          {run.mcpClient && (
            <>
              <dt>MCP host</dt>
              <dd>
                {run.mcpClient.name} {run.mcpClient.version}
                {run.mcpClient.server ? ` via /mcp/${run.mcpClient.server}` : ' via /mcp'}
              </dd>
            </>
          )}
          <dt>finished</dt>
          <dd>{time(run.finishedAt)}</dd>
        </dl>
      )}
      {run?.failure && (
        <p className="error">
          {run.failure.kind} {run.failure.code}: {run.failure.message}
        </p>
      )}
      <div className="run-columns">
        <section>
          <h2>Calls</h2>
          {run?.toolCalls.edges.length === 0 && <p className="muted">No calls yet.</p>}
          {run?.toolCalls.edges.map(({ node }) => (
            <CallRow key={node.id} call={node} me={me} now={now} />
          ))}
        </section>
        <section>
          <h2>Journal</h2>
          {journal.error && <p className="error">{journal.error}</p>}
          <ol className="journal">
            {journal.events.map((event) => (
              <JournalRow key={event.seq} event={event} />
            ))}
          </ol>
        </section>
      </div>
    </main>
  );
}
