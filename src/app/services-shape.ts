import type { BridgeOptions, ExtensionBridge } from '../bridge/extension/index.js';
import type {
  CallerIdpTokens,
  ConnectionOptions,
  CredentialSettings,
  McpConnectionManager,
  McpServerService,
  UpstreamCredentials,
} from '../bridge/mcp/index.js';
import type {
  ApprovalBatchService,
  ApprovalQueueService,
  BuiltInExecutor,
  Dispatcher,
  DispatcherOptions,
  PolicyService,
  ProfileRunDefaultsService,
  RegistryService,
  RunService,
  ToolCallService,
} from '../calls/index.js';
import type { BuiltInTool, ToolExecutor } from '../calls/tool-contract.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/client.js';
import type { AgentLoop, AgentRunService, ModelOutputHub } from '../features/agent/index.js';
import type { ChatService } from '../features/chat/index.js';
import type {
  GatewayCallOptions,
  GatewayCalls,
  GatewaySessions,
  GatewaySubscriptions,
  HostAnswers,
  HostNotices,
  ListChanged,
} from '../features/gateway/index.js';
import type { GrantService } from '../features/grants/index.js';
import type { IdentityService, IdentitySettings } from '../features/identity/index.js';
import type { ModelConnectionService, ProviderClient, RetryPolicy } from '../features/models/index.js';
import type { NotificationService, Notifier, NotifierOptions } from '../features/notifications/index.js';
import type { Metrics } from '../features/observability/index.js';
import type { SkillService } from '../features/skill/index.js';
import type { TokenService, TokenWatch } from '../features/tokens/index.js';
import type { WorkspaceConfig, Workspaces } from '../features/workspace/index.js';
import type { CharacterService, WorldInfoService } from '../features/worldinfo/index.js';
import type { JournalBus } from '../journal/bus.js';
import type { Invalidations } from '../journal/invalidations.js';
import type { JournalService } from '../journal/service.js';
import type { ContextService } from '../model/context/service.js';
import type { ModelService } from '../model/service.js';

// The shape of what the composition root (services.ts) builds and is given, kept apart from the wiring.

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
    /** Hosts' resource subscriptions on /mcp/<server>, each on an upstream session of its own. */
    subscriptions: GatewaySubscriptions;
    /** Hosts' cancellations and roots changes, carried to the process with the request or the upstream sessions. */
    notices: HostNotices;
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
