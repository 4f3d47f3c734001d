import { setTimeout as sleep } from 'node:timers/promises';
import { type ServerProcess, startServer } from './server-process.js';

/** The server as `npm start` runs it (dist/, built by the process project's global setup). */
export const PRODUCTION_SERVER = ['node', 'dist/app/main.js'];
/** The server plus the test-only tools (test/support/test-tools.ts), run from source. */
export const TEST_TOOLS_SERVER = ['node_modules/.bin/tsx', 'test/support/test-server.ts'];

/** A request that no server answered in this long, even after repeats on both, is a hang. */
const ANSWER_MS = 30_000;

export interface GraphqlAnswer {
  // biome-ignore lint/suspicious/noExplicitAny: the caller asserts the exact response shape.
  data?: any;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

/** Waits for `probe`, failing with `what` instead of hanging. */
export async function within<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | null | false>,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`not reached in ${ms} ms: ${what}`);
    await sleep(100);
  }
}

/** A server's place in the pair: its current process, null while it is dead or starting again. */
interface Slot {
  server: ServerProcess | null;
  /** Requests its current process answered: one that answers is warm and has more in flight. */
  answered: number;
  starting: Promise<void>;
}

/** The server died under the request, or was gone: the request may be repeated on the other. */
class Unreachable extends Error {}

/**
 * Two server processes on one database, either of which may be killed with SIGKILL and started
 * again, and a client that, when its server dies, repeats the request on the other one as a real
 * client behind a load balancer would.
 */
export class ServerPair {
  private readonly slots: Slot[] = [0, 1].map(() => ({
    server: null,
    answered: 0,
    starting: Promise.resolve(),
  }));
  private readonly processes: ServerProcess[] = [];
  private startFailure: Error | null = null;
  private closing = false;

  constructor(
    private readonly env: Record<string, string>,
    private readonly token: string,
  ) {}

  /** Starts server `index` (0 or 1) and resolves once it listens. */
  start(index: number, command = PRODUCTION_SERVER): Promise<void> {
    const slot = this.slots[index]!;
    slot.starting = (async () => {
      const server = await startServer(this.env, command);
      this.processes.push(server);
      if (this.closing) return server.kill();
      slot.server = server;
      slot.answered = 0;
    })();
    return slot.starting;
  }

  /**
   * Sends a request to server `prefer` (any integer: its parity picks the server) and, while
   * servers die under it, repeats it on the other one, then on whichever is up.
   */
  async ask(prefer: number, what: string, query: string, variables: Record<string, unknown> = {}) {
    const until = Date.now() + ANSWER_MS;
    for (let i = prefer; ; i += 1) {
      const slot = this.slots[i % 2]!;
      const server = slot.server;
      if (server) {
        try {
          const answer = await this.post(server, query, variables);
          slot.answered += 1;
          return answer;
        } catch (error) {
          if (!(error instanceof Unreachable)) throw new Error(`${what}: ${(error as Error).message}`);
        }
      }
      if (this.startFailure) throw new Error(`${what}: ${this.startFailure.message}`);
      if (Date.now() > until) throw new Error(`${what}: no server answered in ${ANSWER_MS} ms`);
      await sleep(50);
    }
  }

  /** `ask`, refusing an answer with errors. */
  async must(prefer: number, what: string, query: string, variables?: Record<string, unknown>) {
    const answer = await this.ask(prefer, what, query, variables);
    if (answer.errors) throw new Error(`${what}: ${JSON.stringify(answer.errors)}`);
    return answer.data;
  }

  private async post(server: ServerProcess, query: string, variables: Record<string, unknown>) {
    try {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(ANSWER_MS),
      });
      return (await response.json()) as GraphqlAnswer;
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') throw error;
      throw new Unreachable((error as Error).message);
    }
  }

  /**
   * Kills `kills` times a server that has answered `warm` requests since it started (so it has
   * more in flight), each at a random moment a few hundred milliseconds later, and starts it
   * again with PRODUCTION_SERVER. The first victim is server `first`. Both may be down at once
   * for a while; `ask` waits for one to be back. Stops early once `stopped()`; resolves when the
   * last one started listens.
   */
  async killRepeatedly(kills: number, warm: number, first: number, stopped: () => boolean): Promise<void> {
    for (let k = 0; k < kills && !stopped(); k += 1) {
      const victim = await within('a server answering requests, to kill', 60_000, async () => {
        if (this.startFailure) throw this.startFailure;
        if (stopped()) return 'stopped';
        const serving = this.slots.filter((s, i) => s.server && s.answered >= warm && (k > 0 || i === first));
        return serving[Math.floor(Math.random() * serving.length)] ?? null;
      });
      if (victim === 'stopped') break;
      await sleep(200 + Math.random() * 600);
      const server = victim.server!;
      victim.server = null;
      await server.kill();
      // Awaited below; until then a failed start is kept, not left unhandled.
      this.start(this.slots.indexOf(victim)).catch((error: Error) => {
        this.startFailure = error;
      });
    }
    await Promise.all(this.slots.map((s) => s.starting));
  }

  /** Kills every process it started, including one still starting. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled(this.slots.map((s) => s.starting));
    await Promise.all(this.processes.map((s) => s.kill()));
  }
}
