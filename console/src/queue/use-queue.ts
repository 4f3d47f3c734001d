import { useEffect, useReducer } from 'react';
import { useClient } from 'urql';
import { QueueEventsSubscription } from '../api/documents';
import type { QueueCallFieldsFragment } from '../gql/graphql';
import type { ServerFilter } from '../logic/filters';
import { initialQueue, type QueueAction, type QueueState, queueReducer } from '../logic/queue';

export type QueueCall = QueueCallFieldsFragment;

const reducer = (state: QueueState<QueueCall>, action: QueueAction<QueueCall> | { type: 'restart' }) =>
  action.type === 'restart' ? initialQueue<QueueCall>() : queueReducer(state, action);

/**
 * The live queue for a filter. Each time the stream starts (a new filter, or the link came back)
 * the server sends a fresh snapshot, which replaces the cards when it ends.
 */
export function useQueue(filter: ServerFilter | null) {
  const client = useClient();
  const [state, dispatch] = useReducer(reducer, undefined, () => initialQueue<QueueCall>());
  const [error, setError] = useReducer((_: string | null, next: string | null) => next, null);
  const key = JSON.stringify(filter);

  useEffect(() => {
    dispatch({ type: 'restart' });
    const variables = { filter: JSON.parse(key) as ServerFilter | null };
    const subscription = client
      .subscription(QueueEventsSubscription, variables, {
        onConnected: () => dispatch({ type: 'resubscribed' }),
      })
      .subscribe((result) => {
        if (result.error) setError(result.error.graphQLErrors[0]?.message ?? result.error.message);
        const event = result.data?.approvalQueueEvents;
        if (!event) return;
        setError(null);
        dispatch({
          type: 'event',
          event: { kind: event.kind, call: event.call ?? null, pending: event.pending },
        });
      });
    return () => subscription.unsubscribe();
  }, [client, key]);

  return { state, error, decided: (id: string) => dispatch({ type: 'decided', id }) };
}
