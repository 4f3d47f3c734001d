import { fmt, type Timing } from './measure.js';
import type { PeerEngine, PeerOutcome } from './peer.js';
import type { PerCall } from './pg-stats.js';

/** The figures of one benchmark run that the side-by-side table and the targets are read from. */
export interface Figures {
  autoSeq: Timing;
  autoRuns: Timing;
  approvedSeq: Timing;
  approvedRuns: Timing;
  floorApprovedSeq: Timing;
  floorApprovedRuns: Timing;
  stats: { auto: { early: PerCall; late: PerCall }; approved: { early: PerCall; late: PerCall } } | null;
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const rate = (t: { rate: number; p50: number }) => `${fmt(t.rate)}/s, p50 ${fmt(t.p50)} ms`;
const peerRate = (rateValue: number, p50: number) => rate({ rate: rateValue, p50 });
const row = (cells: string[]) =>
  out(
    `  ${cells[0]!.padEnd(44)}${cells
      .slice(1)
      .map((c) => c.padEnd(30))
      .join('')}`,
  );

export function printSideBySide(f: Figures, peer: PeerOutcome) {
  out('\nside by side: the approved round trip, same run, same Postgres server');
  if ('unavailable' in peer) {
    out(`  LangGraph peer not measured: ${peer.unavailable}`);
    row(['', 'this server']);
    row(['approved round trip, sequential', rate(f.approvedSeq)]);
    row(['approved round trip, 8 workers, a run each', rate(f.approvedRuns)]);
    row(['raw-SQL floor (2 transactions), sequential', rate(f.floorApprovedSeq)]);
    row(['raw-SQL floor (2 transactions), 8 workers', rate(f.floorApprovedRuns)]);
    return;
  }
  const { sync, async: lgAsync, floor } = peer.figures;
  row([
    '',
    'this server',
    'LangGraph, durability sync',
    'ours / LangGraph sync',
    'LangGraph, default (async)',
  ]);
  const line = (label: string, ours: Timing, pick: (e: PeerEngine) => [number, number]) =>
    row([
      label,
      rate(ours),
      peerRate(...pick(sync)),
      fmt(ours.rate / pick(sync)[0]),
      peerRate(...pick(lgAsync)),
    ]);
  line('approved round trip, sequential', f.approvedSeq, (e) => [e.seqRate, e.seqP50]);
  line('approved round trip, 8 workers, a run each', f.approvedRuns, (e) => [e.concRate, e.concP50]);
  row(['', 'our raw-SQL floor', "the peer's raw-SQL floor"]);
  row([
    'floor (2 transactions), sequential',
    rate(f.floorApprovedSeq),
    peerRate(floor.seqRate, floor.seqP50),
  ]);
  row([
    'floor (2 transactions), 8 workers',
    rate(f.floorApprovedRuns),
    peerRate(floor.concRate, floor.concP50),
  ]);
  const ourWal = f.stats?.approved.early;
  row([
    'WAL bytes per approved call',
    ourWal ? `${fmt(ourWal.databaseWalBytes ?? Number.NaN)} (this database)` : 'n/a',
    `${fmt(sync.walBytesPerCall)} (sync, cluster-wide)`,
    '',
    `${fmt(lgAsync.walBytesPerCall)} (cluster-wide)`,
  ]);
  out(
    `  peer: ${Object.entries(peer.figures.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; synchronous_commit=${peer.figures.synchronousCommit}`,
  );
}

export function printPerCallGrowth(f: Figures) {
  if (!f.stats) return;
  out('\ngrowth per call from early in a run to after ~1,000 calls (late / early):');
  for (const [name, s] of [
    ['auto-approved', f.stats.auto],
    ['approved', f.stats.approved],
  ] as const) {
    const ratio = (a: number | null, b: number | null) =>
      a === null || b === null || a <= 0 ? 'n/a' : fmt(b / a);
    out(
      `  ${name.padEnd(14)} commits ×${ratio(s.early.commits, s.late.commits)}   rows read ×${ratio(s.early.rowsRead, s.late.rowsRead)} (raw ×${ratio(s.early.rawRowsRead, s.late.rawRowsRead)})   WAL (this database) ×${ratio(s.early.databaseWalBytes, s.late.databaseWalBytes)}`,
    );
  }
}

/** Each target of issue 16 next to its figure; a benchmark only prints, it never fails on a figure. */
export function printTargets(f: Figures, peer: PeerOutcome) {
  out('\ntargets (issue 16):');
  const target = (label: string, figure: string, holds: boolean | null) =>
    out(
      `  ${label.padEnd(72)} ${figure.padEnd(24)} ${holds === null ? 'not measured' : holds ? 'holds' : 'does not hold'}`,
    );
  if ('figures' in peer) {
    const { sync } = peer.figures;
    const seq = f.approvedSeq.rate / sync.seqRate;
    const runs = f.approvedRuns.rate / sync.concRate;
    target('approved round trip, sequential ≥ 2× LangGraph (sync)', `${fmt(seq)}×`, seq >= 2);
    target('approved round trip, 8 workers ≥ 2× LangGraph (sync)', `${fmt(runs)}×`, runs >= 2);
  } else {
    target('approved round trip ≥ 2× LangGraph (sync), both figures', 'peer not measured', null);
  }
  target('auto-approved call p50 ≤ 4 ms (sequential)', `${fmt(f.autoSeq.p50)} ms`, f.autoSeq.p50 <= 4);
  const approvedScale = f.approvedRuns.rate / f.approvedSeq.rate;
  const autoScale = f.autoRuns.rate / f.autoSeq.rate;
  target(
    '8 runs in parallel ≥ 3× sequential, approved round trip',
    `${fmt(approvedScale)}×`,
    approvedScale >= 3,
  );
  target('8 runs in parallel ≥ 3× sequential, auto-approved call', `${fmt(autoScale)}×`, autoScale >= 3);
  for (const [name, s] of [
    ['auto-approved', f.stats?.auto],
    ['approved', f.stats?.approved],
  ] as const) {
    // Raw, the background included: subtracting a noisy background can take either end below zero.
    const growth = s && s.early.rawRowsRead > 0 ? s.late.rawRowsRead / s.early.rawRowsRead : null;
    target(
      `rows read per ${name} call flat, 1st → 1,000th call (within 10%, raw)`,
      s
        ? `${fmt(s.early.rawRowsRead)} → ${fmt(s.late.rawRowsRead)} (×${growth === null ? 'n/a' : fmt(growth)})`
        : 'n/a',
      growth === null ? null : growth <= 1.1,
    );
  }
}
