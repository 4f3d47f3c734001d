import { AsyncLocalStorage } from 'node:async_hooks';

/** What a writer says its transaction wrote, for listeners that act once it has committed. */
export type CommitTopic = 'journal';

/** The database handle's one method this wraps (client.ts passes the Drizzle database). */
interface Transactional {
  transaction: (...args: never[]) => Promise<unknown>;
}

type CommitListener = () => Promise<void> | void;

interface Scope {
  hooks: CommitHooks;
  open: boolean;
  touched: Set<CommitTopic>;
}

const current = new AsyncLocalStorage<Scope>();

/**
 * Says, inside a transaction, that it wrote rows of `topic`: the database's listeners of the topic
 * run once it commits, and never if it rolls back. Savepoints and tools' ambient transactions run
 * in the context of the transaction that opened them, so they mark it. Called after its statement
 * from a context whose transaction has already ended (work it left running), it signals at once:
 * that statement committed on its own.
 */
export function touch(topic: CommitTopic): void {
  const scope = current.getStore();
  if (!scope) return;
  if (scope.open) scope.touched.add(topic);
  else scope.hooks.emit(topic);
}

/**
 * One per database: every top-level `db.transaction` runs in a scope that `touch` marks, and the
 * marked topics' listeners run after its COMMIT. A listener's promise is kept until it settles, so
 * that closing the database waits for what a commit started (a wake-up sent to other processes).
 */
export class CommitHooks {
  private readonly listeners = new Map<CommitTopic, Set<CommitListener>>();
  private readonly pending = new Set<Promise<void>>();

  /** Runs `listener` after every commit that touched `topic`; returns its removal. */
  on(topic: CommitTopic, listener: CommitListener): () => void {
    const set = this.listeners.get(topic) ?? new Set<CommitListener>();
    this.listeners.set(topic, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  emit(topic: CommitTopic): void {
    for (const listener of this.listeners.get(topic) ?? []) {
      const done = Promise.resolve()
        .then(listener)
        .catch(() => {});
      this.pending.add(done);
      void done.finally(() => this.pending.delete(done));
    }
  }

  /** Resolves once every listener started so far has settled. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Makes `db.transaction` open a scope and emit the topics it touched once it commits. */
  install(db: Transactional): void {
    const open = db.transaction.bind(db);
    const hooks = this;
    db.transaction = async function transaction(...args: never[]) {
      const scope: Scope = { hooks, open: true, touched: new Set() };
      try {
        const result = await current.run(scope, () => open(...args));
        scope.open = false;
        for (const topic of scope.touched) hooks.emit(topic);
        return result;
      } finally {
        scope.open = false;
      }
    } as Transactional['transaction'];
  }
}
