import { serveJobs } from '../support/child-jobs.js';
import { approvedRoundTrip, autoApprovedCall, createRun, httpClient, RunFollower } from './api.js';
import { pool, type Timing } from './measure.js';

/**
 * The lifecycle benchmark's client, in a process of its own (forked by client.ts), so that what
 * it spends building requests and reading answers is not counted in the server's process: an agent
 * and an approver over keep-alive HTTP (api.ts's httpClient), and a graphql-ws journal
 * subscription per run it made. Worker w of a phase keeps to runIds[w % runIds.length].
 */
export type ClientJob =
  | { type: 'runs'; n: number; follow: boolean }
  | { type: 'auto' | 'approved'; n: number; workers: number; runIds: string[] }
  | { type: 'unfollow' };

const [endpoint, agentSecret, approverSecret] = process.argv.slice(2) as [string, string, string];
const agent = httpClient(endpoint, agentSecret);
const approver = httpClient(endpoint, approverSecret);
const wsEndpoint = endpoint.replace('http', 'ws');
const followers = new Map<string, RunFollower>();

async function perform(job: ClientJob): Promise<string[] | Timing | null> {
  switch (job.type) {
    case 'runs': {
      const runIds = await Promise.all(Array.from({ length: job.n }, () => createRun(agent)));
      if (job.follow)
        for (const id of runIds) followers.set(id, new RunFollower(wsEndpoint, agentSecret, id));
      return runIds;
    }
    case 'auto':
      return pool(job.n, job.workers, (_, w) =>
        autoApprovedCall(agent, job.runIds[w % job.runIds.length]!, 'bench.noop'),
      );
    case 'approved':
      return pool(job.n, job.workers, (_, w) => {
        const runId = job.runIds[w % job.runIds.length]!;
        const follower = followers.get(runId);
        if (!follower) throw new Error(`run ${runId} is not followed`);
        return approvedRoundTrip(agent, approver, follower, runId, 'bench.ask');
      });
    case 'unfollow':
      await Promise.all([...followers.values()].map((f) => f.close()));
      followers.clear();
      return null;
  }
}

serveJobs(perform);
