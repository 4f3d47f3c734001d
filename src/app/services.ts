import {
  BridgeHub,
  defaultBridgeOptions,
  ExtensionAnswerService,
  ExtensionBridge,
  ExtensionExecutor,
  ExtensionToolService,
  InvocationStore,
} from '../bridge/extension/index.js';
import {
  CredentialKeyRing,
  defaultConnectionOptions,
  McpConnectionManager,
  McpExecutor,
  McpServerService,
  UpstreamCredentials,
} from '../bridge/mcp/index.js';
import {
  ApprovalBatchService,
  ApprovalQueueService,
  BuiltInExecutor,
  Dispatcher,
  defaultDispatcherOptions,
  JournalAccess,
  PolicyService,
  ProfileRunDefaultsService,
  RegistryService,
  RunService,
  ToolAvailability,
  ToolCallService,
} from '../calls/index.js';
import type { Logger } from '../core/logger.js';
import { ambientDb } from '../db/ambient.js';
import type { Database } from '../db/client.js';
import { AgentLoop, AgentRunService, ModelOutputHub } from '../features/agent/index.js';
import { ChatService, chatTools } from '../features/chat/index.js';
import {
  defaultGatewayCallOptions,
  GatewayCalls,
  GatewaySessions,
  GatewaySubscriptions,
  HostAnswers,
  HostNotices,
  ListChanged,
} from '../features/gateway/index.js';
import { GrantService } from '../features/grants/index.js';
import { IdentityService } from '../features/identity/index.js';
import { DEFAULT_RETRY_POLICY, ModelConnectionService, ProviderClient } from '../features/models/index.js';
import {
  ApprovalLinks,
  DEFAULT_LINK_TTL_MS,
  defaultNotifierOptions,
  NotificationService,
  Notifier,
} from '../features/notifications/index.js';
import {
  CallMetrics,
  Metrics,
  registerServiceGauges,
  traceExecutors,
} from '../features/observability/index.js';
import { RunResources, resourceTools } from '../features/resources/index.js';
import { SkillService, skillTools } from '../features/skill/index.js';
import { DEFAULT_TOKEN_CHECK_INTERVAL_MS, TokenService, TokenWatch } from '../features/tokens/index.js';
import {
  DEFAULT_WORKSPACE_CONFIG,
  WorkspaceAdmin,
  WorkspaceReader,
  WorkspaceSessions,
  WorkspaceStore,
  type Workspaces,
  workspaceTools,
} from '../features/workspace/index.js';
import { checkWorkspacePath } from '../features/workspace/rules/paths.js';
import { CharacterService, WorldInfoService, worldInfoTools } from '../features/worldinfo/index.js';
import { JournalAnnouncer } from '../journal/announce.js';
import { JournalBus } from '../journal/bus.js';
import { Invalidations } from '../journal/invalidations.js';
import { JournalService } from '../journal/service.js';
import { ContextService } from '../model/context/service.js';
import { ModelService } from '../model/service.js';

import type { ServiceOptions, Services } from './services-shape.js';

export type { ServiceOptions, Services };

/**
 * The one composition root: every service is constructed here and handed what it needs, tool
 * families included (a tool gets its feature's service when it is built, never a database handle).
 */
export function createServices(database: Database, logger: Logger, options: ServiceOptions = {}): Services {
  const db = database.db;
  const announcer = new JournalAnnouncer(database, logger);
  const bus = new JournalBus(database, logger, { pollMs: options.busPollMs, origin: announcer.origin });
  const invalidations = new Invalidations(database, logger);

  const workspaceConfig = options.workspace ?? DEFAULT_WORKSPACE_CONFIG;
  // The tool families' services: inside a call's transaction their queries go to it (db/ambient.ts).
  const toolDb = ambientDb(db);
  const workspaceStore = new WorkspaceStore(toolDb, workspaceConfig);
  const workspaceAdmin = new WorkspaceAdmin(workspaceStore);
  const workspaces: Workspaces = {
    store: workspaceStore,
    sessions: new WorkspaceSessions(workspaceStore, workspaceConfig),
    admin: workspaceAdmin,
    reader: new WorkspaceReader(workspaceStore, workspaceAdmin, workspaceConfig),
  };
  const chats = new ChatService(toolDb);
  const runDefaults = new ProfileRunDefaultsService(db);
  // The lifecycle checks a run's workspace and chat through this port; it knows neither feature.
  const runs = new RunService(db, runDefaults, {
    claimWorkspace: (tx, workspaceId, userId) => workspaceStore.claim(tx, workspaceId, userId),
    chatOwner: (tx, chatId) => chats.owner(tx, chatId),
  });
  const skills = new SkillService(toolDb);
  const characters = new CharacterService(toolDb, chats);
  const worldInfo = new WorldInfoService(toolDb, chats, characters);
  const builtIns = new BuiltInExecutor([
    ...workspaceTools(workspaces),
    ...chatTools(chats),
    ...skillTools(skills),
    ...worldInfoTools(worldInfo),
    ...resourceTools(new RunResources(toolDb)),
    ...(options.extraTools ?? []),
  ]);

  const extensionStore = new InvocationStore(db);
  const tokens = new TokenService(db, invalidations, logger, options.tokenCacheMs);
  const credentials = options.credentials ?? { keys: CredentialKeyRing.parse(undefined), exchange: null };
  const upstreamCredentials = new UpstreamCredentials(db, credentials.keys, credentials.exchange);
  const identity = new IdentityService(db, tokens, options.identity ?? null, {
    logger,
    idpTokens: upstreamCredentials.callerTokens,
  });
  const tokenWatch = new TokenWatch(tokens, logger, options.tokenCheckMs ?? DEFAULT_TOKEN_CHECK_INTERVAL_MS);
  const extensionHub = new BridgeHub(database, extensionStore, logger, {
    ...defaultBridgeOptions,
    ...options.bridge,
  });
  const extensions = new ExtensionBridge({
    tools: new ExtensionToolService(db, invalidations),
    store: extensionStore,
    hub: extensionHub,
    executor: new ExtensionExecutor(extensionStore, extensionHub),
    answers: new ExtensionAnswerService(db),
  });
  const mcpServers = new McpServerService(db, invalidations);
  const mcpConnections = new McpConnectionManager(
    { db, changes: invalidations, bus, logger },
    { ...defaultConnectionOptions, ...options.mcp },
  );
  mcpServers.onChange((name) => mcpConnections.reconcile(name));

  // One list of executors: the dispatcher runs calls on them, and policy offers only tools one of them can run now.
  const executors = traceExecutors([
    builtIns,
    extensions.executor,
    ...(options.executors ?? []),
    new McpExecutor(mcpConnections, upstreamCredentials),
  ]);
  const availability = new ToolAvailability(executors);
  const registry = new RegistryService(db, invalidations, availability);
  const policy = new PolicyService(db, registry, availability, checkWorkspacePath, invalidations);
  const dispatcherOptions = {
    ...defaultDispatcherOptions,
    ...(options.approvalExpiryWarningMs === undefined
      ? {}
      : { approvalExpiryWarningMs: options.approvalExpiryWarningMs }),
    ...options.dispatcher,
  };
  const dispatcher = new Dispatcher({ db, runs, registry, executors, bus, logger }, dispatcherOptions);
  const grants = new GrantService(db, runs, policy, checkWorkspacePath, invalidations);
  const notifierOptions = { ...defaultNotifierOptions, ...options.notifications };
  const approvalLinks = new ApprovalLinks(db, {
    secret: options.linkSecret,
    ttlMs: options.linkTtlMs ?? DEFAULT_LINK_TTL_MS,
    now: notifierOptions.now,
  });
  const notifications = new NotificationService(db, approvalLinks, invalidations);
  const notifier = new Notifier(
    { db, links: approvalLinks, bus, changes: invalidations, logger },
    notifierOptions,
  );
  // Every port of the lifecycle, plugged here at once: the features it calls out to are not its imports.
  const calls = new ToolCallService(
    { db, runs, registry, policy },
    {
      dispatch: (callId) => dispatcher.dispatch(callId),
      inline: dispatcher,
      eager: dispatcher,
      decided: (tx, call, input, principal) => notifications.onDecision(tx, call, input, principal),
      grants,
    },
  );
  const batches = new ApprovalBatchService(db, runs, calls);
  const journalAccess = new JournalAccess(db, runs, calls);
  const modelConnections = new ModelConnectionService(db);
  const agentRuns = new AgentRunService(db, runs, modelConnections);
  const context = new ContextService({ db, runs, chats, worldInfo, workspaces, prompts: agentRuns });
  const models = new ModelService({ db, runs, policy, calls, context, registry });
  const providerClient = new ProviderClient(logger, { ...DEFAULT_RETRY_POLICY, ...options.modelRetry });
  const agentOutput = new ModelOutputHub(database, logger);
  const metrics = new Metrics();
  const agentLoop = new AgentLoop(
    {
      db,
      runs,
      models,
      connections: modelConnections,
      client: providerClient,
      bus,
      output: agentOutput,
      logger,
      onModelRequest: (connection, outcome) =>
        metrics.modelRequests.inc({ connection: connection.name, format: connection.wireFormat, outcome }),
    },
    { leaseMs: dispatcherOptions.leaseMs, pollMs: dispatcherOptions.pollMs },
  );
  agentRuns.onStart((runId) => void agentLoop.kick(runId));
  const callMetrics = new CallMetrics(db, metrics, logger);
  registerServiceGauges(metrics, {
    db,
    mcpStates: () => mcpConnections.states(),
    busListeners: () => bus.subscriberCount,
  });
  const gatewaySessions = new GatewaySessions(db, runs, invalidations);
  const gateway = {
    sessions: gatewaySessions,
    calls: new GatewayCalls(
      {
        db,
        calls,
        bus,
        sessions: gatewaySessions,
        beforeCall: (principal, toolName) => upstreamCredentials.prepare(principal, toolName),
      },
      { ...defaultGatewayCallOptions, ...options.gateway },
    ),
    listChanged: new ListChanged(policy, invalidations),
    answers: new HostAnswers(database, logger),
    subscriptions: new GatewaySubscriptions(db, logger),
    notices: new HostNotices(database, mcpConnections, logger),
  };
  let unsubscribeMetrics = () => {};
  return {
    database,
    logger,
    registry,
    policy,
    tokens,
    identity,
    tokenWatch,
    runs,
    runDefaults,
    calls,
    batches,
    grants,
    bus,
    invalidations,
    journal: new JournalService(db, bus, journalAccess),
    approvalQueue: new ApprovalQueueService(db, bus, runs, calls, journalAccess),
    dispatcher,
    builtIns,
    workspaces,
    chats,
    skills,
    worldInfo,
    characters,
    context,
    models,
    extensions,
    mcpServers,
    mcpConnections,
    upstreamCredentials,
    callerIdpTokens: upstreamCredentials.callerTokens,
    metrics,
    modelConnections,
    providerClient,
    notifications,
    notifier,
    agentRuns,
    agentLoop,
    agentOutput,
    gateway,
    async start() {
      await invalidations.start();
      await registry.upsertBuiltIns(builtIns.definitions.map((tool) => tool.spec));
      unsubscribeMetrics = bus.subscribe((events) => callMetrics.onEvents(events));
      await bus.start();
      await notifier.start();
      await extensions.start();
      dispatcher.start();
      await mcpConnections.start();
      await agentOutput.start();
      agentLoop.start();
      tokenWatch.start();
      gateway.listChanged.start();
      await gateway.answers.start();
      await gateway.notices.start();
    },
    async stop() {
      await gateway.answers.stop();
      await gateway.notices.stop();
      await gateway.subscriptions.close();
      gateway.listChanged.stop();
      tokenWatch.stop();
      await agentLoop.stop();
      await agentOutput.stop();
      await dispatcher.stop();
      await extensions.stop();
      await mcpConnections.stop();
      await notifier.stop();
      await bus.stop();
      announcer.stop();
      await invalidations.stop();
      unsubscribeMetrics();
    },
  };
}
