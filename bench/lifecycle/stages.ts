import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Database } from '../../src/db/client.js';
import { fmt, percentile } from './measure.js';

interface Served {
  arrived: number;
  firstBegin: number | null;
  lastCommit: number | null;
  inTransactions: number;
  transactions: number;
  finished: number;
}

/**
 * Where the server's time for one HTTP request goes: from its arrival to its first transaction
 * (yoga: the body, the parse and validation caches, the context with the token, the resolver's own
 * reads), inside its transactions, and from its last commit to the end of the response (the rest
 * of the resolver, serialization, the write). What the client measured beyond the server's total is
 * the client's and the socket's share. A transaction belongs to the request whose handling started
 * it (an async context set when the request arrives), so sweeps and subscription reads do not count.
 * It is attached only while `measure` runs, in a phase of its own, so that the headline figures
 * are taken without it. The process's CPU time over the phase, per request, is printed too: the
 * client runs in a process of its own, so all of it is the server's.
 */
export class StageClock {
  private readonly current = new AsyncLocalStorage<Served>();

  constructor(
    private readonly http: Server,
    private readonly database: Database,
  ) {}

  /**
   * Runs `work`, requests one at a time, and prints the p50 of each stage of the requests the
   * server answered meanwhile, one line per kind: `kinds` names them in the order `work` sends them,
   * repeating (a round trip's requestToolCall, then its approveToolCall).
   */
  async measure<T>(kinds: readonly string[], work: () => Promise<T>): Promise<T> {
    const served: Served[] = [];
    const arrived = (_req: IncomingMessage, res: ServerResponse) => {
      const record: Served = {
        arrived: performance.now(),
        firstBegin: null,
        lastCommit: null,
        inTransactions: 0,
        transactions: 0,
        finished: 0,
      };
      // The listeners after this one run in this synchronous turn, so the request's handling inherits the record.
      this.current.enterWith(record);
      res.once('finish', () => {
        record.finished = performance.now();
        served.push(record);
      });
    };
    const db = this.database.db as unknown as { transaction: (...args: unknown[]) => Promise<unknown> };
    const open = db.transaction;
    db.transaction = async (...args: unknown[]) => {
      const record = this.current.getStore();
      const began = performance.now();
      try {
        return await open.apply(db, args);
      } finally {
        if (record) {
          const ended = performance.now();
          record.firstBegin ??= began;
          record.lastCommit = ended;
          record.inTransactions += ended - began;
          record.transactions += 1;
        }
      }
    };
    this.http.prependListener('request', arrived);
    const cpu = process.cpuUsage();
    try {
      return await work();
    } finally {
      const used = process.cpuUsage(cpu);
      this.http.off('request', arrived);
      db.transaction = open;
      this.current.disable();
      kinds.forEach((kind, k) => {
        print(
          kind,
          served.filter((_, i) => i % kinds.length === k),
        );
      });
      // The client is another process: this is the server's own CPU (with the stage clock's small share).
      const perRequest = (used.user + used.system) / 1000 / Math.max(1, served.length);
      process.stdout.write(
        `  ${'server process CPU per request'.padEnd(52)} ${fmt(perRequest)} ms (user + system over ${served.length} requests)\n`,
      );
    }
  }
}

function p50(values: number[]): number {
  return values.length === 0
    ? Number.NaN
    : percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
}

function print(label: string, served: Served[]): void {
  const writing = served.filter((s) => s.firstBegin !== null);
  const before = p50(writing.map((s) => s.firstBegin! - s.arrived));
  const inside = p50(writing.map((s) => s.inTransactions));
  const after = p50(writing.map((s) => s.finished - s.lastCommit!));
  const total = p50(served.map((s) => s.finished - s.arrived));
  const transactions = writing.reduce((sum, s) => sum + s.transactions, 0) / Math.max(1, writing.length);
  process.stdout.write(
    `  ${label.padEnd(52)} server p50 ${fmt(total)} ms = arrival→first BEGIN ${fmt(before)} + in transactions ${fmt(inside)} + last COMMIT→response end ${fmt(after)} (${served.length} requests, ${transactions.toFixed(2)} transactions each)\n`,
  );
}
