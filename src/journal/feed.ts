/**
 * A subscriber's queue of events, read with `for await`. The bus hands every event to a thousand
 * of these at once, so a push is one array slot or one resolved promise; a Repeater's push costs
 * several promises each and throws past 1,024 unread values, inside the bus's fan-out.
 */
export class Feed<T> implements AsyncIterableIterator<T> {
  private queue: T[] = [];
  private head = 0;
  /** Reads waiting for a value, oldest first (a reader may ask for several before the first comes). */
  private waiting: Array<{ resolve: (step: IteratorResult<T>) => void; reject: (error: unknown) => void }> =
    [];
  private error: unknown = null;
  private ended = false;
  private drainedNow: (() => void) | null = null;
  private readonly closers: Array<() => void> = [];
  private sink: ((value: T) => boolean) | null = null;

  /**
   * @param limit unread values beyond which the reader is too slow: the feed fails with `overflow()`
   *   (the subscriber resumes from its last position) rather than hold the process's memory.
   */
  constructor(
    private readonly limit: number,
    private readonly overflow: () => Error,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Unread values. */
  get backlog(): number {
    return this.queue.length - this.head;
  }

  /**
   * Hands later values straight to `sink` instead of the reader, while the reader waits with
   * nothing unread: a read is asked for only once the values before it are through the reader's
   * whole path, so a value the sink takes goes out after them. A sink that declines (returns
   * false: its transport is backed up) leaves the value, and those after it, to the reader.
   */
  divert(sink: (value: T) => boolean): void {
    this.sink = sink;
  }

  push(value: T): void {
    if (this.ended || this.error !== null) return;
    if (this.sink && this.waiting.length > 0 && this.head === this.queue.length && this.sink(value)) return;
    const read = this.waiting.shift();
    if (read) {
      read.resolve({ value, done: false });
      return;
    }
    if (this.backlog >= this.limit) {
      this.fail(this.overflow());
      return;
    }
    this.queue.push(value);
  }

  /** Resolves when the reader has taken every value pushed so far (at once when it has). */
  drained(): Promise<void> {
    if (this.backlog === 0 || this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const before = this.drainedNow;
      this.drainedNow = () => {
        before?.();
        resolve();
      };
    });
  }

  /** Ends the feed with an error: the reader gets the values already pushed, then the error. */
  fail(error: unknown): void {
    if (this.ended || this.error !== null) return;
    this.error = error;
    if (this.waiting.length > 0) {
      const [first, ...rest] = this.waiting.splice(0);
      this.close();
      first!.reject(error);
      for (const read of rest) read.resolve({ value: undefined, done: true });
    }
  }

  /** Runs when the feed ends, however it ends (the reader stopped, the feed failed). */
  onClose(closer: () => void): void {
    if (this.ended) closer();
    else this.closers.push(closer);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head]!;
      this.head += 1;
      if (this.head === this.queue.length) this.emptied();
      return Promise.resolve({ value, done: false });
    }
    if (this.error !== null && !this.ended) {
      const error = this.error;
      this.close();
      return Promise.reject(error);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.close();
    for (const read of this.waiting.splice(0)) read.resolve({ value: undefined, done: true });
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<T>> {
    this.close();
    return Promise.reject(error);
  }

  private emptied(): void {
    this.queue = [];
    this.head = 0;
    const drained = this.drainedNow;
    this.drainedNow = null;
    drained?.();
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink = null;
    this.queue = [];
    this.head = 0;
    this.emptied();
    for (const closer of this.closers.splice(0)) closer();
  }
}
