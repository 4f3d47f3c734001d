import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One pgbench figure: which transaction, in which protocol mode, at how many a second. */
export interface PgbenchRate {
  label: string;
  perSecond: number;
}

/**
 * What Postgres itself takes for the appends' transactions, with no Node in the way: pgbench with
 * the same writer count, each client one autocommit statement a transaction. The plain table's
 * one-row insert (the `plain` floor's, both protocol modes) and the journal's own append statement
 * (`src/journal/append.ts`, one event). Measured in the same run as the Node figures, since on a
 * shared host only figures from one run compare.
 */
export async function pgbenchFloors(url: string, clients: number, seconds: number): Promise<PgbenchRate[]> {
  const dir = await mkdtemp(join(tmpdir(), 'ceiling-pgbench-'));
  const scripts = {
    plain: `insert into bench_append_floor (run_id, payload) values (gen_random_uuid(), '{"w":1}'::jsonb);\n`,
    journal:
      `with first as (select ats_journal_positions(1) as seq) ` +
      `insert into journal_events (seq, type, run_id, call_id, actor, payload) ` +
      `select first.seq, 'checkpoint_created', gen_random_uuid(), null, 'bench', '{"w":1}'::jsonb from first;\n`,
  };
  const cases: Array<[label: string, script: keyof typeof scripts, mode: string]> = [
    ['one-row insert, -M prepared', 'plain', 'prepared'],
    ['one-row insert, -M simple', 'plain', 'simple'],
    ['journal append statement, -M prepared', 'journal', 'prepared'],
  ];
  try {
    const rates: PgbenchRate[] = [];
    for (const [label, script, mode] of cases) {
      const file = join(dir, `${script}.sql`);
      await writeFile(file, scripts[script]);
      const args = ['-n', '-f', file, '-c', String(clients), '-j', '2', '-T', String(seconds)];
      const { stdout } = await run('pgbench', [...args, '-M', mode, url]);
      const tps = /tps = ([\d.]+)/.exec(stdout);
      if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
      rates.push({ label, perSecond: Number(tps[1]) });
    }
    return rates;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
