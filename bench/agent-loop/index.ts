import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/app/logger.js';
import { createServices, type Services } from '../../src/app/services.js';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import type { ProviderKind } from '../../src/model/providers/types.js';
import { answer, FakeProvider } from '../../test/support/fake-provider.js';
import { adminPrincipal, noTool } from '../lifecycle/bench-tools.js';

/**
 * `npm run bench -- agent-loop [runs] [rounds] [format]`: the server's own cost per round of its
 * agent loop. A fake provider on a local port answers every request at once (streamed, one call to
 * `bench.noop`, so each loop runs until its maxRounds); `runs` loops of `rounds` rounds go one after
 * another, then all at once. Per round it prints the loop's whole time, the time the model took as
 * the server saw it (request sent to the last byte of the answer, from agent_rounds), and the
 * difference: assembling the request, storing the turn, running the call, waking up. DATABASE_URL
 * set: on that Postgres; else on an embedded PGlite.
 */
export async function main(args: string[]): Promise<void> {
  const runs = Number(args[0] ?? 10);
  const rounds = Number(args[1] ?? 5);
  const format = (args[2] ?? 'OPENAI_CHAT').toUpperCase() as ProviderKind;
  const dir = mkdtempSync(join(tmpdir(), 'ats-bench-agent-'));
  const url = process.env.DATABASE_URL;
  const database = url
    ? await openDatabase({ driver: 'postgres', url })
    : await openDatabase({ driver: 'pglite', dataDir: join(dir, 'pgdata') });
  await runMigrations(database, url);
  const services = createServices(database, createLogger('silent'), { extraTools: [noTool('bench.noop')] });
  await services.start();
  const provider = await FakeProvider.start();
  // Every answer calls the tool: each loop runs until its maxRounds, in any wire format.
  provider.always((_request, index) =>
    answer({ calls: [{ id: `call_${index}`, name: 'bench_noop', args: {} }], id: `r_${index}` }),
  );
  try {
    const { token } = await services.tokens.create({ name: 'bench', role: 'ADMIN' });
    const principal = adminPrincipal(token.id);
    await services.policy.set({ layer: 'PLATFORM', toolPattern: 'bench.noop', effect: 'ALLOW' }, principal);
    await services.modelConnections.set(
      { name: 'bench', wireFormat: format, baseUrl: provider.baseUrl, model: 'fake-model' },
      'bench',
    );
    process.stdout.write(
      `agent loop, ${format}, ${rounds} rounds per loop, ${database.driver}; fake model answers at once\n`,
    );
    await measure(services, principal, 'sequential', { runs, parallel: 1, rounds });
    await measure(services, principal, `${runs} loops at once`, { runs, parallel: runs, rounds });
  } finally {
    await provider.close();
    await services.stop();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many loops one measurement runs, how many of them at once, and the rounds of each. */
interface Load {
  runs: number;
  parallel: number;
  rounds: number;
}

async function measure(
  services: Services,
  principal: ReturnType<typeof adminPrincipal>,
  label: string,
  { runs, parallel, rounds }: Load,
) {
  const loopOnce = async () => {
    const began = performance.now();
    // Waits on the journal as a client's subscription would, rather than polling the job: a poll
    // every few milliseconds from every loop would load the database the loops are measured on.
    let runId = '';
    const early = new Set<string>();
    let stoppedRun: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stoppedRun = resolve;
    });
    const unsubscribe = services.bus.subscribe((events) => {
      for (const event of events)
        if (event.type === 'agent_run_stopped' && event.runId) {
          if (event.runId === runId) stoppedRun();
          else early.add(event.runId);
        }
    });
    ({ runId } = await services.agentRuns.start(
      {
        run: {},
        connection: 'bench',
        presetName: 'no-tool-results',
        prompt: 'Call bench.noop.',
        maxRounds: rounds,
      },
      principal,
    ));
    if (early.has(runId)) stoppedRun();
    await stopped;
    unsubscribe();
    const job = await services.agentRuns.get(runId, principal);
    if (job?.stopReason !== 'max_rounds') throw new Error(`loop ${runId} stopped: ${job?.stopReason}`);
    const total = performance.now() - began;
    const model = (await services.agentRuns.rounds(runId)).reduce((sum, r) => sum + r.durationMs, 0);
    return { total, model };
  };
  const samples: Array<{ total: number; model: number }> = [];
  const began = performance.now();
  for (let done = 0; done < runs; done += parallel)
    samples.push(...(await Promise.all(Array.from({ length: Math.min(parallel, runs - done) }, loopOnce))));
  const wall = performance.now() - began;
  const perRound = (ms: number) => (ms / rounds).toFixed(1).padStart(7);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const total = median(samples.map((s) => s.total));
  const model = median(samples.map((s) => s.model));
  process.stdout.write(
    `${label.padEnd(22)} per round: loop ${perRound(total)} ms = model ${perRound(model)} ms + server ${perRound(
      total - model,
    )} ms   (median of ${runs} loops; ${((runs * rounds) / (wall / 1000)).toFixed(1)} rounds/s overall)\n`,
  );
}
