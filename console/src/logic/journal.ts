/**
 * A run's journal as the page shows it. Events come in seq order; after a reconnect the stream
 * resumes after the last seq shown, and anything at or before it (a replay that overlaps) is dropped,
 * so there is neither a gap nor a duplicate.
 */
export interface SeqEvent {
  /** A bigint as a string. */
  seq: string;
}

export interface JournalState<E extends SeqEvent> {
  events: E[];
  lastSeq: string | null;
}

export function initialJournal<E extends SeqEvent>(): JournalState<E> {
  return { events: [], lastSeq: null };
}

export function journalReducer<E extends SeqEvent>(state: JournalState<E>, event: E): JournalState<E> {
  if (state.lastSeq !== null && BigInt(event.seq) <= BigInt(state.lastSeq)) return state;
  return { events: [...state.events, event], lastSeq: event.seq };
}

/** The `afterSeq` to (re)subscribe with: everything after what is shown, or all ("0") at first. */
export const resumeAfter = (state: JournalState<SeqEvent>): string => state.lastSeq ?? '0';
