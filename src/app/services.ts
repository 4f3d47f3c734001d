import {
  BridgeHub,
  type BridgeOptions,
  defaultBridgeOptions,
  ExtensionAnswerService,
  ExtensionBridge,
  ExtensionExecutor,
  ExtensionToolService,
  InvocationStore,
} from '../bridge/extension/index.js';
import {
  type CallerIdpTokens,
  type ConnectionOptions,
  CredentialKeyRing,
  type CredentialSettings,
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
  type DispatcherOptions,
  defaultDispatcherOptions,
  JournalAccess,
  PolicyService,
  ProfileRunDefaultsService,
  RegistryService,
  RunService,
  ToolAvailability,
  ToolCallService,
} from '../calls/index.js';
import type { BuiltInTool, ToolExecutor } from '../calls/tool-contract.js';
import type { Logger } from '../core/logger.js';
import { countTokens } from '../core/tokens.js';
import { ambientDb } from '../db/ambient.js';
import type { Database } from '../db/client.js';
import { AgentLoop, AgentRunService, ModelOutputHub } from '../features/agent/index.js';
import { ChatService, chatTools } from '../features/chat/index.js';
import {
  defaultGatewayCallOptions,
  type GatewayCallOptions,
  GatewayCalls,
  GatewaySessions,
  HostAnswers,
  ListChanged,
} from '../features/gateway/index.js';
import { GrantService } from '../features/grants/index.js';
import { IdentityService, type IdentitySettings } from '../features/identity/index.js';
import {
  DEFAULT_RETRY_POLICY,
  ModelConnectionService,
  ProviderClient,
  type RetryPolicy,
} from '../features/models/index.js';
import {
  ApprovalLinks,
  DEFAULT_LINK_TTL_MS,
  defaultNotifierOptions,
  NotificationService,
  Notifier,
  type NotifierOptions,
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
  type WorkspaceConfig,
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

/** Every service a request may reach, built once per process over one database. */
export interface Services {
  database: Database;
  logger: Logger;
  registry: RegistryService;
  policy: PolicyService;
  tokens: TokenService;
  /** Authenticates every bearer secret: API tokens, and IdP tokens when OIDC is configured. */
  identity: IdentityService;
  /** Ends this process's subscriptions and sockets of tokens revoked, expired or rotated out. */
  tokenWatch: TokenWatch;
  runs: RunService;
  /** Per-profile run limits admins set; agents may only tighten them. */
  runDefaults: ProfileRunDefaultsService;
  calls: ToolCallService;
  /** A model turn's calls that need approval, decided together. */
  batches: ApprovalBatchService;
  /** Scoped grants: RUN and ALWAYS approvals, listed and revoked. */
  grants: GrantService;
  bus: JournalBus;
  /** Tells every process's caches (policy rules, registry, token rows) what changed. */
  invalidations: Invalidations;
  journal: JournalService;
  /** The calls waiting for a person, paged and live. */
  approvalQueue: ApprovalQueueService;
  dispatcher: Dispatcher;
  builtIns: BuiltInExecutor;
  workspaces: Workspaces;
  chats: ChatService;
  skills: SkillService;
  worldInfo: WorldInfoService;
  characters: CharacterService;
  context: ContextService;
  models: ModelService;
  extensions: ExtensionBridge;
  /** MCP server configuration (admin) and this process's connections to the servers. */
  mcpServers: McpServerService;
  mcpConnections: McpConnectionManager;
  /** Each user's own credentials for upstream MCP servers (write-only), and the IdP tokens requests came with. */
  upstreamCredentials: UpstreamCredentials;
  callerIdpTokens: CallerIdpTokens;
  /** This process's Prometheus instruments, fed from the journal bus and read at /metrics. */
  metrics: Metrics;
  /** Model connections (admin) and the one HTTP client that calls them. */
  modelConnections: ModelConnectionService;
  providerClient: ProviderClient;
  /** Notification targets (admin), the delivery log and one-time approval links. */
  notifications: NotificationService;
  /** Sends notifications from the journal: durable, retried, once across processes. */
  notifier: Notifier;
  /** Agent loops the server drives (startAgentRun), the driver, and their live model output. */
  agentRuns: AgentRunService;
  agentLoop: AgentLoop;
  agentOutput: ModelOutputHub;
  /** The MCP gateway: sessions and their runs, held calls, list_changed for open streams. */
  gateway: {
    sessions: GatewaySessions;
    calls: GatewayCalls;
    listChanged: ListChanged;
    /** Hosts' answers to relayed requests, carried to the process that asked. */
    answers: HostAnswers;
  };
  /** Registers the built-in tools and starts the journal bus, the extension bridge, the dispatcher and the MCP connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Extra BUILT_IN tools: tests pass their own here; production uses only the feature families. */
  extraTools?: BuiltInTool[];
  /** Workspace roots and per-profile narrowing (WORKSPACE_CONFIG). */
  workspace?: WorkspaceConfig;
  /** Executors for other sources (extension bridge, MCP), tried after the built-ins. */
  executors?: ToolExecutor[];
  dispatcher?: Partial<DispatcherOptions>;
  busPollMs?: number;
  bridge?: Partial<BridgeOptions>;
  /** MCP connection timeouts and reconnect back-off. */
  mcp?: Partial<ConnectionOptions>;
  /** CREDENTIALS_KEY (parsed) and this server's client for token exchange (null: none). */
  credentials?: CredentialSettings;
  /** How often open subscriptions' tokens are re-checked (TOKEN_CHECK_INTERVAL_MS). */
  tokenCheckMs?: number;
  /** How long a token's row is reused between requests (0: read on every request). */
  tokenCacheMs?: number;
  /** OIDC_*: IdP tokens are accepted beside API tokens; unset: API tokens only. */
  identity?: IdentitySettings | null;
  /** Retries of model requests (tests shorten the back-off). */
  modelRetry?: Partial<RetryPolicy>;
  /** How long before a pending call expires its `tool_call_expiring` event fires (APPROVAL_EXPIRY_WARNING_MS). */
  approvalExpiryWarningMs?: number;
  /** Notification sending: retries, timeouts, poll (tests shorten them and step the clock). */
  notifications?: Partial<NotifierOptions>;
  /** LINK_SECRET: signs approval links; without it the server keeps a generated key in the database. */
  linkSecret?: string;
  /** How long a link to a call with no approval deadline stays valid. */
  linkTtlMs?: number;
  /** The MCP gateway's hold (MCP_APPROVAL_HOLD_MS) and progress interval. */
  gateway?: Partial<GatewayCallOptions>;
}

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
      decided: (tx, call, input, principal) => notifications.onDecision(tx, call, input, principal),
      grants,
    },
  );
  const batches = new ApprovalBatchService(db, runs, calls);
  const journalAccess = new JournalAccess(db, runs, calls);
  const modelConnections = new ModelConnectionService(db);
  const agentRuns = new AgentRunService(db, runs, modelConnections);
  const context = new ContextService({ db, runs, chats, worldInfo, workspaces, prompts: agentRuns });
  const models = new ModelService(db, runs, policy, calls, context);
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
  const gatewaySessions = new GatewaySessions(db, runs);
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
      // Building the tokenizer blocks the event loop for about a second; doing it now keeps that
      // pause out of the first tool call, where it would stall lease renewal.
      countTokens('warm up');
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
    },
    async stop() {
      await gateway.answers.stop();
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
