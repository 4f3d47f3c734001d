import { playScript } from './agent.js';
import { Api, type Json } from './api.js';
import { AutoApprover } from './approver.js';
import { type EmbeddedServer, startEmbeddedServer } from './embedded.js';
import { DemoExtension, EXTENSION_ID } from './extension.js';
import { type JournalEvent, RunFollower } from './follower.js';
import { playMcp } from './mcp.js';
import { type DemoOptions, OptionsError, parseOptions, USAGE } from './options.js';
import { PROFILE, prepare, revokeInternalTokens } from './setup.js';
import { summarize } from './summary.js';

const started = Date.now();
const log = (line: string) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}\n`);

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(new URL('/health', url), { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

/** The server to play against: the running one, or an own embedded one (asked for, or when nothing answers). */
async function connect(
  options: DemoOptions,
): Promise<{ url: string; adminToken: string; embedded: EmbeddedServer | null }> {
  if (options.url && (await answers(options.url))) {
    if (!options.adminToken) {
      throw new OptionsError(
        `${options.url} answers, but the demo needs its admin token: pass --token <token> or set ADMIN_TOKEN ` +
          '(the ADMIN_TOKEN the server was started with, or the ats_… token its first start printed).',
      );
    }
    return { url: options.url, adminToken: options.adminToken, embedded: null };
  }
  if (options.url && !options.urlIsDefault) throw new OptionsError(`nothing answers at ${options.url}`);
  log(
    options.url
      ? `nothing answers at ${options.url}: starting an embedded server on a fresh database…`
      : 'starting an embedded server on a fresh database…',
  );
  // With --mcp a short hold, so the first answer of a call that needs a person is the pending one.
  const embedded = await startEmbeddedServer(options.mcp ? { MCP_APPROVAL_HOLD_MS: '2000' } : {});
  log(`embedded server listening on ${embedded.url} (data in ${embedded.dataDir}, removed when it stops)`);
  return { url: embedded.url, adminToken: embedded.adminToken, embedded };
}

function narrate(follower: RunFollower, autoApprove: boolean) {
  return (event: JournalEvent) => {
    const tool = event.callId ? follower.toolOf(event.callId) : '';
    switch (event.type) {
      case 'TOOL_CALL_AWAITING_APPROVAL':
        log(
          autoApprove
            ? `waiting for approval of ${tool} — the demo approves it shortly (--auto-approve), or approve it in the console`
            : `waiting for approval of ${tool} — approve it in the console`,
        );
        break;
      case 'TOOL_CALL_APPROVED':
      case 'TOOL_CALL_DENIED': {
        const verb = event.type === 'TOOL_CALL_APPROVED' ? 'approved' : 'denied';
        const reason = event.payload.reason ? `: "${event.payload.reason}"` : '';
        log(`${tool} ${verb} by ${event.actor}${reason}`);
        break;
      }
      case 'TOOL_CALL_EXPIRED':
        log(`${tool} expired: no one decided in time`);
        break;
      case 'TOOL_CALL_COMPLETED':
      case 'TOOL_CALL_FAILED':
        log(`  ${tool} → ${event.type === 'TOOL_CALL_COMPLETED' ? 'completed' : 'failed'}`);
        break;
      case 'CHECKPOINT_CREATED':
        log(`  checkpoint #${event.payload.checkpoint} (${event.payload.label ?? event.payload.reason})`);
        break;
    }
  };
}

async function main(options: DemoOptions): Promise<number> {
  const { url, adminToken, embedded } = await connect(options);
  const origin = new URL(url).origin;
  const admin = new Api(url, adminToken);
  const cleanups: Array<() => Promise<void> | void> = [() => admin.close()];
  try {
    const me = await admin.request('{ me { role } }');
    if (me.me?.role !== 'ADMIN')
      throw new OptionsError('the token given is not an ADMIN token of this server');

    const prepared = await prepare(admin, options.user);
    for (const note of prepared.notes) log(`imported/allowed: ${note}`);
    const { tokens } = prepared;
    cleanups.push(() => revokeInternalTokens(admin, tokens));

    const extension = new DemoExtension(url, tokens.extension);
    cleanups.push(() => extension.close());
    await extension.connect(async () => {
      const connections = (await admin.request('{ extensionConnections { extensionId } }')) as Json;
      return connections.extensionConnections.some((c: Json) => c.extensionId === EXTENSION_ID);
    });
    log(`extension ${EXTENSION_ID} connected over the bridge (tool ext.${EXTENSION_ID}.post_update)`);

    const agent = new Api(url, tokens.agent);
    cleanups.push(() => agent.close());
    const workspaceId = `demo-${options.user}-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${Math.random().toString(36).slice(2, 6)}`;
    const run = await agent.request('mutation($input: CreateRunInput!) { createRun(input: $input) { id } }', {
      input: { userId: options.user, profileId: PROFILE, chatId: prepared.chatId, workspaceId },
    });
    const runId: string = run.createRun.id;

    process.stdout.write(
      `\n  Open the console:   ${origin}/console\n` +
        `  Sign in with the approver token (acts for ${options.user}):\n    ${tokens.approver}\n` +
        `  or the viewer token (sees ${options.user}'s runs, decides nothing):\n    ${tokens.viewer}\n` +
        `  This run:           ${origin}/console#/runs/${runId}\n` +
        (embedded ? `  Admin token of the embedded server: ${adminToken}\n` : '') +
        '\n',
    );

    let follower: RunFollower | null = null;
    follower = new RunFollower(agent, runId, (event) =>
      narrate(follower!, options.autoApproveMs !== null)(event),
    );
    cleanups.push(() => follower?.close());
    if (options.autoApproveMs !== null) {
      const approver = new AutoApprover(url, tokens.approver, runId, options.autoApproveMs, (error) =>
        log(`auto-approve: ${error instanceof Error ? error.message : JSON.stringify(error)}`),
      );
      approver.start();
      cleanups.push(() => approver.close());
    }

    // Ctrl-C (or a kill) mid-scenario: cancel the run, so no call of it stays in anyone's queue.
    const interrupt = () => {
      log('interrupted: cancelling the run');
      void admin
        .request('mutation($id: ID!) { cancelRun(id: $id) { status } }', { id: runId })
        .catch(() => {})
        .finally(async () => {
          await runCleanups(cleanups);
          await embedded?.stop();
          process.exit(130);
        });
    };
    process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
    cleanups.push(() => {
      process.off('SIGINT', interrupt).off('SIGTERM', interrupt);
    });

    log(`run ${runId} started for ${options.user} (profile ${PROFILE}, workspace ${workspaceId})`);
    if (options.mcp) {
      const ok = await playMcp(origin, tokens.agent, runId, log);
      // An MCP host never ends the run it was bound to; a run nobody drives should not look live.
      log('the MCP host is done: cancelling its run');
      await admin.request('mutation($id: ID!) { cancelRun(id: $id) { status } }', { id: runId });
      return ok ? 0 : 1;
    }
    const played = await playScript(agent, runId, follower, log);
    const { run: after } = await agent.request('query($id: ID!) { run(id: $id) { status } }', { id: runId });
    if (after.status === 'RUNNING') {
      // A denial earlier left workspace.finish nothing to hand in; a run nobody drives should not look live.
      log('the run did not finish: cancelling it');
      await admin.request('mutation($id: ID!) { cancelRun(id: $id) { status } }', { id: runId });
    }
    const summary = await summarize(agent, runId, played, follower.events);
    for (const error of extension.errors) log(`extension error: ${String(error)}`);
    log(summary.line(((Date.now() - started) / 1000).toFixed(1), `${origin}/console#/runs/${runId}`));
    return summary.ok ? 0 : 1;
  } finally {
    await runCleanups(cleanups);
    if (embedded) await keepOrStop(embedded, options);
  }
}

/** Last in, first out; a failing step (a server already gone) does not keep the others from running. */
async function runCleanups(cleanups: Array<() => Promise<void> | void>): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      log(`while cleaning up: ${(error as Error).message}`);
    }
  }
}

async function keepOrStop(embedded: EmbeddedServer, options: DemoOptions): Promise<void> {
  if (!options.exitAtEnd) {
    log(`the embedded server keeps serving at ${new URL(embedded.url).origin}/console — Ctrl-C stops it`);
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  }
  await embedded.stop();
}

let options: DemoOptions;
try {
  options = parseOptions(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
main(options).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      error instanceof OptionsError
        ? `demo: ${error.message}\n`
        : `demo failed: ${(error as Error).stack ?? String(error)}\n`,
    );
    process.exit(error instanceof OptionsError ? 2 : 1);
  },
);
