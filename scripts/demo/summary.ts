import type { PlayedCall } from './agent.js';
import type { Api, Json } from './api.js';
import type { JournalEvent } from './follower.js';

const RUN = `query($id: ID!) { run(id: $id) { status
  toolCalls(first: 100) { edges { node { id name status decision { approved decidedBy } } } } } }`;

/** The run as the server tells it after the script ended, in one line. */
export async function summarize(agent: Api, runId: string, played: PlayedCall[], events: JournalEvent[]) {
  const run = (await agent.request(RUN, { id: runId })).run as Json;
  const calls = run.toolCalls.edges.map((e: Json) => e.node) as Json[];
  const decided = calls.filter((c) => c.decision);
  const approved = decided.filter((c) => c.decision.approved);
  const deciders = [...new Set(decided.map((c) => c.decision.decidedBy))].join(', ') || 'nobody';
  const completed = played.filter((c) => c.status === 'COMPLETED').length;
  return {
    ok: run.status === 'COMPLETED' && completed === played.length,
    line: (seconds: string, runUrl: string) =>
      `demo finished in ${seconds} s: run ${runId} ${run.status}, ${played.length} calls ` +
      `(${completed} completed; ${approved.length} approved and ${decided.length - approved.length} denied by ${deciders}), ` +
      `${events.length} journal events — see ${runUrl}`,
  };
}
