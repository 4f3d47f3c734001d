import type { PolicyService } from '../../calls/index.js';
import type { Invalidations } from '../../journal/invalidations.js';
import type { GatewayContext } from './sessions.js';
import { visibleTools } from './tool-list.js';

interface Watcher {
  context: { userId: string | null; profileId: string | null };
  seen: string;
  notify: () => void;
}

/**
 * `notifications/tools/list_changed` for hosts with an open GET stream on this process. Every
 * process hears a policy or registry change through its invalidation topics; each works out again
 * what each of its streams may see and tells only those whose list changed.
 */
export class ListChanged {
  private readonly watchers = new Set<Watcher>();
  private unsubscribe: Array<() => void> = [];

  constructor(
    private readonly policy: PolicyService,
    private readonly invalidations: Invalidations,
  ) {}

  start(): void {
    const recheck = () => void this.recheck();
    this.unsubscribe = [this.invalidations.on('policy', recheck), this.invalidations.on('registry', recheck)];
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
  }

  /** Watches what this context may see until the returned function is called. */
  watch(ctx: GatewayContext, notify: () => void): () => void {
    const watcher: Watcher = {
      context: { userId: ctx.principal.userId, profileId: ctx.profileId },
      seen: '',
      notify,
    };
    void this.signature(watcher.context).then((seen) => {
      watcher.seen = seen;
    });
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private async signature(context: Watcher['context']): Promise<string> {
    const visible = await visibleTools(this.policy, context);
    return JSON.stringify([...visible.advertised.byAdvertised.entries()].sort());
  }

  private async recheck(): Promise<void> {
    const byContext = new Map<string, Promise<string>>();
    for (const watcher of this.watchers) {
      const key = JSON.stringify(watcher.context);
      let signature = byContext.get(key);
      if (!signature) {
        signature = this.signature(watcher.context);
        byContext.set(key, signature);
      }
      const now = await signature.catch(() => watcher.seen);
      if (now !== watcher.seen) {
        watcher.seen = now;
        watcher.notify();
      }
    }
  }
}
