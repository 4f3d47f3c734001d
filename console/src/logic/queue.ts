/**
 * The approval queue as the page shows it, reduced from approvalQueueEvents: a snapshot of one
 * ENTERED per pending call, SNAPSHOT_END, then ENTERED and LEFT live. After a reconnect the server
 * sends a fresh snapshot; the cards shown stay until it ends, then the snapshot replaces them, so a
 * card that left while the page was away goes and none is shown twice.
 */
export interface QueuedCall {
  id: string;
  requestedAt: string;
}

export type QueueEventKind = 'ENTERED' | 'LEFT' | 'SNAPSHOT_END';

export interface QueueEvent<C extends QueuedCall> {
  kind: QueueEventKind;
  call?: C | null;
  pending: number;
}

export interface QueueState<C extends QueuedCall> {
  /** Oldest first. */
  cards: C[];
  /** The snapshot being received; null once it has ended. */
  incoming: C[] | null;
  /** What the server last counted as pending for this filter; null before the first event. */
  pending: number | null;
}

export type QueueAction<C extends QueuedCall> =
  | { type: 'event'; event: QueueEvent<C> }
  /** The subscription was (re)started: a snapshot follows. */
  | { type: 'resubscribed' }
  /** This page decided the call; it goes before the server's LEFT arrives. */
  | { type: 'decided'; id: string };

export function initialQueue<C extends QueuedCall>(): QueueState<C> {
  return { cards: [], incoming: [], pending: null };
}

function oldestFirst(a: QueuedCall, b: QueuedCall): number {
  const byTime = Date.parse(a.requestedAt) - Date.parse(b.requestedAt);
  return byTime !== 0 ? byTime : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The list with `call` in its place (replacing one with the same id), oldest first. */
function upsert<C extends QueuedCall>(list: C[], call: C): C[] {
  return [...list.filter((c) => c.id !== call.id), call].sort(oldestFirst);
}

const without = <C extends QueuedCall>(list: C[], id: string) => list.filter((c) => c.id !== id);

export function queueReducer<C extends QueuedCall>(
  state: QueueState<C>,
  action: QueueAction<C>,
): QueueState<C> {
  switch (action.type) {
    case 'resubscribed':
      return { ...state, incoming: [] };
    case 'decided':
      return {
        ...state,
        cards: without(state.cards, action.id),
        incoming: state.incoming && without(state.incoming, action.id),
      };
    case 'event': {
      const { kind, call, pending } = action.event;
      if (kind === 'SNAPSHOT_END') {
        return { cards: state.incoming ?? state.cards, incoming: null, pending };
      }
      if (!call) return { ...state, pending };
      if (kind === 'LEFT') {
        return {
          cards: without(state.cards, call.id),
          incoming: state.incoming && without(state.incoming, call.id),
          pending,
        };
      }
      if (state.incoming) return { ...state, incoming: upsert(state.incoming, call), pending };
      return { ...state, cards: upsert(state.cards, call), pending };
    }
  }
}
