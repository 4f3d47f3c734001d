import { useEffect, useMemo, useRef, useState } from 'react';
import type { Me } from '../auth/session';
import { canDecide } from '../auth/session';
import { turnSizes } from '../logic/batch';
import { filtersFromSearch, filtersToSearch, type QueueFilters, toServerFilter } from '../logic/filters';
import { leavesQueue, type Outcome, type Settled, settledNote } from '../logic/outcome';
import { keepSelection, moveSelection } from '../logic/selection';
import { callHref, grantsHref } from '../route';
import { useNow } from '../use-now';
import { CallCard } from './call-card';
import type { CardHandle } from './decision-panel';
import { FiltersBar } from './filters-bar';
import { SettledCard } from './settled-card';
import { useQueue } from './use-queue';

/** Notes of edits and grants made here, newest first; older ones give way. */
const SETTLED_KEPT = 5;

/** Typing in a filter restarts the stream; this long after the last key is enough to feel instant. */
const FILTER_DELAY_MS = 300;

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}

export function QueuePage({ me, search }: { me: Me; search: string }) {
  const applied = useMemo(() => filtersFromSearch(search), [search]);
  const [filters, setFilters] = useState<QueueFilters>(applied);
  useEffect(() => setFilters(applied), [applied]);
  useEffect(() => {
    const next = filtersToSearch(filters);
    if (next === filtersToSearch(applied)) return;
    const timer = setTimeout(() => window.location.replace(`#/${next}`), FILTER_DELAY_MS);
    return () => clearTimeout(timer);
  }, [filters, applied]);

  const serverFilter = useMemo(() => toServerFilter(applied), [applied]);
  const { state, error, decided } = useQueue(serverFilter);
  const now = useNow();
  const cards = state.cards;
  const ids = useMemo(() => cards.map((c) => c.id), [cards]);
  const turns = useMemo(() => turnSizes(cards), [cards]);
  const [settled, setSettled] = useState<Settled[]>([]);
  const onOutcome = (outcome: Outcome, call: { run: { id: string; userId?: string | null } }) => {
    if (leavesQueue(outcome)) decided(outcome.callId);
    const note = settledNote(outcome, {
      call: callHref,
      grants: () =>
        grantsHref(
          outcome.kind === 'granted' && outcome.scope === 'RUN'
            ? { runId: call.run.id }
            : { userId: call.run.userId },
        ),
    });
    if (note)
      setSettled((notes) => [note, ...notes.filter((n) => n.callId !== note.callId)].slice(0, SETTLED_KEPT));
  };

  const [selected, setSelected] = useState<string | null>(null);
  const previousIds = useRef<string[]>([]);
  useEffect(() => {
    setSelected((current) => keepSelection(previousIds.current, ids, current));
    previousIds.current = ids;
  }, [ids]);

  const count = cards.length;
  useEffect(() => {
    document.title = count > 0 ? `(${count}) Approvals` : 'Approvals';
    return () => {
      document.title = 'Approvals';
    };
  }, [count]);

  const handles = useRef(new Map<string, CardHandle>());
  const decides = canDecide(me);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        setSelected((current) => moveSelection(ids, current, event.key === 'j' ? 1 : -1));
        return;
      }
      const handle = selected ? handles.current.get(selected) : undefined;
      if (!handle) return;
      if (event.key === 'r') {
        event.preventDefault();
        handle.focusReason();
      } else if (decides && (event.key === 'a' || event.key === 'd')) {
        event.preventDefault();
        void handle.decide(event.key === 'a');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids, selected, decides]);

  useEffect(() => {
    if (selected)
      document
        .querySelector(`[data-call-id="${CSS.escape(selected)}"]`)
        ?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const loading = state.incoming !== null && cards.length === 0;
  return (
    <main className="queue-page">
      <div className="queue-head">
        <h1>
          Waiting for approval{' '}
          <span className="count" data-testid="queue-count">
            {count}
          </span>
        </h1>
        <FiltersBar filters={filters} onChange={setFilters} />
      </div>
      <p className="shortcuts">
        <kbd>j</kbd>/<kbd>k</kbd> select ·{' '}
        {decides && (
          <>
            <kbd>a</kbd> approve · <kbd>d</kbd> deny ·{' '}
          </>
        )}
        <kbd>r</kbd> reason
        {!decides && <span className="readonly-note"> · {me.role}: you can watch the queue, not decide</span>}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <section data-testid="queue" className="queue" aria-busy={state.incoming !== null}>
        {cards.map((call) => (
          <CallCard
            key={call.id}
            call={call}
            me={me}
            now={now}
            selected={call.id === selected}
            onSelect={() => setSelected(call.id)}
            onOutcome={(outcome) => onOutcome(outcome, call)}
            turnSize={call.turnId ? turns.get(call.turnId) : undefined}
            register={(handle) => {
              if (handle) handles.current.set(call.id, handle);
              else handles.current.delete(call.id);
            }}
          />
        ))}
        {cards.length === 0 && !loading && (
          <p className="empty" data-testid="queue-empty">
            Nothing is waiting for a decision{serverFilter ? ' with these filters' : ''}.
          </p>
        )}
        {loading && <p className="empty">Loading the queue…</p>}
      </section>
      {/* Below the waiting cards: what still waits comes first, what was decided here after. */}
      {settled.length > 0 && (
        <section className="settled-list" aria-label="decided here">
          {settled.map((note) => (
            <SettledCard
              key={note.callId}
              note={note}
              onDismiss={() => setSettled((notes) => notes.filter((n) => n !== note))}
            />
          ))}
        </section>
      )}
    </main>
  );
}
