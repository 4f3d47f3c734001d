import type { Executor } from '../db/tx.js';
import type { ChangeTopic, Invalidations } from './invalidations.js';

/**
 * A small table read once per process and kept until its topic changes anywhere. A load that a
 * change overtook is returned to its caller but not kept (the generation it started under is
 * gone), so a slow read of the old rows cannot bring them back after the invalidation.
 */
export class Cached<T> {
  private generation = 0;
  private kept: { value: T } | null = null;

  constructor(
    private readonly changes: Invalidations,
    private readonly topic: ChangeTopic,
  ) {
    changes.on(topic, () => this.clear());
  }

  /**
   * The kept value, or `load`'s. Read from the table, and not kept, while a change this process
   * sent is not yet back, or when `tx` is a transaction that itself changed the topic (its own
   * uncommitted rows are for it alone).
   */
  async read(load: () => Promise<T>, tx?: Executor): Promise<T> {
    if (this.changes.unsettled(this.topic) || (tx && this.changes.changedIn(tx, this.topic))) return load();
    if (this.kept) return this.kept.value;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) this.kept = { value };
    return value;
  }

  clear(): void {
    this.generation += 1;
    this.kept = null;
  }
}
