import { useEffect, useReducer, useRef, useState } from 'react';
import { useClient } from 'urql';
import { JournalSubscription } from '../api/documents';
import type { RunJournalSubscription } from '../gql/graphql';
import { initialJournal, journalReducer, resumeAfter } from '../logic/journal';

export type JournalEntry = RunJournalSubscription['journalEvents'];

/**
 * A run's journal, live. After the link comes back the stream is opened again after the last seq
 * shown; the reducer drops anything at or before it, so a replay that overlaps adds nothing twice.
 */
export function useJournal(runId: string, onEvent: (event: JournalEntry) => void) {
  const client = useClient();
  const [state, dispatch] = useReducer(journalReducer<JournalEntry>, undefined, () =>
    initialJournal<JournalEntry>(),
  );
  const [generation, setGeneration] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(state);
  latest.current = state;
  const notify = useRef(onEvent);
  notify.current = onEvent;

  // biome-ignore lint/correctness/useExhaustiveDependencies: each generation resubscribes after the last seq shown.
  useEffect(() => {
    const subscription = client
      .subscription(
        JournalSubscription,
        { runId, afterSeq: resumeAfter(latest.current) },
        { onConnected: (reconnected: boolean) => reconnected && setGeneration((g) => g + 1) },
      )
      .subscribe((result) => {
        if (result.error) setError(result.error.graphQLErrors[0]?.message ?? result.error.message);
        const event = result.data?.journalEvents;
        if (!event) return;
        setError(null);
        dispatch(event);
        notify.current(event);
      });
    return () => subscription.unsubscribe();
  }, [client, runId, generation]);

  return { events: state.events, error };
}
