import postgres from 'postgres';
import { fmt, sleep } from './measure.js';

/**
 * What the database did for a batch of calls: `pg_stat_database` deltas of the benchmark's own
 * database (commits, rows read = tup_returned + tup_fetched, rows written), WAL bytes from
 * `pg_stat_wal` (cluster-wide, so other databases' writes on a shared server count too) and, where
 * the pg_walinspect extension is available, the WAL of transactions that touched this database
 * only. Postgres 15 backends flush their counters at most once a second and within about a second
 * of going idle, so each snapshot first waits for the server's connections to flush.
 *
 * The server also works when no call is made (dispatcher sweeps, approval expiry, token checks,
 * journal polls) and the snapshots are queries too: that background is measured over an idle
 * window and its rate times a batch's duration is subtracted from the batch.
 */
export interface Snapshot {
  at: number;
  commits: number;
  rowsRead: number;
  rowsWritten: number;
  walBytes: number | null;
  lsn: string | null;
}

export interface PerCall {
  calls: number;
  commits: number;
  rowsRead: number;
  /** Rows read per call before the background was subtracted. */
  rawRowsRead: number;
  rowsWritten: number;
  walBytes: number | null;
  databaseWalBytes: number | null;
}

const FLUSH_WAIT_MS = 1500;
const IDLE_WINDOW_MS = 3000;
/**
 * Right after a busy phase the idle rate is still high (autovacuum, lease sweeps of the runs just
 * used) and would be over-subtracted from the next batch: windows are taken until two in a row
 * agree within this share, or MAX_IDLE_WINDOWS have passed.
 */
const SETTLED_SHARE = 0.2;
const MAX_IDLE_WINDOWS = 5;

/** Per millisecond of the idle window. */
interface Background {
  commits: number;
  rowsRead: number;
  rowsWritten: number;
  walBytes: number | null;
  databaseWalBytes: number | null;
}
const NO_BACKGROUND: Background = {
  commits: 0,
  rowsRead: 0,
  rowsWritten: 0,
  walBytes: 0,
  databaseWalBytes: 0,
};

export class PgStats {
  private walinspect = false;
  private background = NO_BACKGROUND;

  private constructor(
    private readonly sql: postgres.Sql,
    private readonly dbOid: number,
  ) {}

  /** A connection of its own, so that the server's pool is not disturbed; null on PGlite. */
  static async open(url: string | undefined): Promise<PgStats | null> {
    if (!url) return null;
    const sql = postgres(url, {
      max: 1,
      onnotice: () => {},
      connection: { application_name: 'bench-stats' },
    });
    const [row] = await sql<
      { oid: number }[]
    >`select oid::int as oid from pg_database where datname = current_database()`;
    const stats = new PgStats(sql, row!.oid);
    try {
      await sql`create extension if not exists pg_walinspect`;
      stats.walinspect = true;
    } catch {
      // Not installed or not allowed: only the cluster-wide figure is printed.
    }
    return stats;
  }

  async snapshot(): Promise<Snapshot> {
    await sleep(FLUSH_WAIT_MS);
    await this.sql`select pg_stat_clear_snapshot()`;
    const [db] = await this.sql<{ commits: string; read: string; written: string }[]>`
      select xact_commit as commits, tup_returned + tup_fetched as read,
             tup_inserted + tup_updated + tup_deleted as written
      from pg_stat_database where datname = current_database()`;
    let walBytes: number | null = null;
    try {
      const [wal] = await this.sql<{ bytes: string }[]>`select wal_bytes as bytes from pg_stat_wal`;
      walBytes = Number(wal!.bytes);
    } catch {
      // pg_stat_wal is Postgres 14 and later.
    }
    const [lsn] = await this.sql<{ lsn: string }[]>`select pg_current_wal_flush_lsn()::text as lsn`;
    return {
      at: performance.now(),
      commits: Number(db!.commits),
      rowsRead: Number(db!.read),
      rowsWritten: Number(db!.written),
      walBytes,
      lsn: lsn!.lsn,
    };
  }

  /** Deltas between two snapshots, less the background over the time between them, per call. */
  private async perCall(before: Snapshot, after: Snapshot, calls: number, net: Background): Promise<PerCall> {
    const ms = after.at - before.at;
    const per = (delta: number | null, rate: number | null) =>
      delta === null || rate === null ? null : (delta - rate * ms) / calls;
    const wal = after.walBytes !== null && before.walBytes !== null ? after.walBytes - before.walBytes : null;
    return {
      calls,
      commits: per(after.commits - before.commits, net.commits)!,
      rowsRead: per(after.rowsRead - before.rowsRead, net.rowsRead)!,
      rawRowsRead: (after.rowsRead - before.rowsRead) / calls,
      rowsWritten: per(after.rowsWritten - before.rowsWritten, net.rowsWritten)!,
      walBytes: per(wal, net.walBytes),
      databaseWalBytes: per(await this.databaseWal(before.lsn, after.lsn), net.databaseWalBytes),
    };
  }

  /** Measures the background over an idle window, which later batches subtract; returns it per second. */
  async measureBackground(): Promise<PerCall> {
    let previous: Background | null = null;
    for (let window = 0; window < MAX_IDLE_WINDOWS; window += 1) {
      const before = await this.snapshot();
      await sleep(IDLE_WINDOW_MS);
      const after = await this.snapshot();
      this.background = await this.perCall(before, after, after.at - before.at, NO_BACKGROUND);
      const settled =
        previous !== null &&
        Math.abs(this.background.commits - previous.commits) <=
          SETTLED_SHARE * Math.max(this.background.commits, previous.commits);
      if (settled) break;
      previous = this.background;
    }
    return { ...scale(this.background, 1000), rawRowsRead: this.background.rowsRead * 1000, calls: 0 };
  }

  /** Measures one batch: snapshot, run it, snapshot. */
  async around(calls: number, batch: () => Promise<unknown>): Promise<PerCall> {
    const before = await this.snapshot();
    await batch();
    return this.perCall(before, await this.snapshot(), calls, this.background);
  }

  /** The WAL of every transaction that wrote a block of this database (and xid-less records on its blocks). */
  private async databaseWal(from: string | null, to: string | null): Promise<number | null> {
    if (!this.walinspect || !from || !to) return null;
    // pg_walinspect refuses a range that starts at the flush position: no WAL was written in it.
    if (from === to) return 0;
    try {
      const pattern = `%/${this.dbOid}/%`;
      const [row] = await this.sql<{ bytes: string }[]>`
        with r as (select xid, record_length, block_ref from pg_get_wal_records_info(${from}::pg_lsn, ${to}::pg_lsn)),
             ours as (select distinct xid from r where xid::text <> '0' and block_ref like ${pattern})
        select coalesce(sum(record_length), 0) as bytes from r
        where xid in (select xid from ours) or (xid::text = '0' and block_ref like ${pattern})`;
      return Number(row!.bytes);
    } catch {
      return null;
    }
  }

  close() {
    return this.sql.end({ timeout: 5 });
  }
}

const scale = (b: Background, k: number): Background => ({
  commits: b.commits * k,
  rowsRead: b.rowsRead * k,
  rowsWritten: b.rowsWritten * k,
  walBytes: b.walBytes === null ? null : b.walBytes * k,
  databaseWalBytes: b.databaseWalBytes === null ? null : b.databaseWalBytes * k,
});

const bytes = (n: number | null) => (n === null ? 'n/a' : `${fmt(n)} B`);

export function printPerCall(label: string, s: PerCall) {
  process.stdout.write(
    `${label.padEnd(52)} commits ${fmt(s.commits).padStart(6)}   rows read ${fmt(s.rowsRead).padStart(6)} (${fmt(s.rawRowsRead)} before)   rows written ${fmt(s.rowsWritten).padStart(5)}   WAL ${bytes(s.walBytes)} (cluster) / ${bytes(s.databaseWalBytes)} (this database)\n`,
  );
}
