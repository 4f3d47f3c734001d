import { type BridgeOptions, ExtensionBridge } from '../bridge/extension/index.js';
import { type ConnectionOptions, defaultConnectionOptions } from '../bridge/mcp/connection.js';
import { McpExecutor } from '../bridge/mcp/executor.js';
import { McpConnectionManager } from '../bridge/mcp/manager.js';
import { McpServerService } from '../bridge/mcp/service.js';
import { Dispatcher, type DispatcherOptions, defaultDispatcherOptions } from '../calls/dispatcher.js';
import { PolicyService } from '../calls/policy-service.js';
import { RegistryService } from '../calls/registry-service.js';
import { RunService } from '../calls/run-service.js';
import { ToolCallService } from '../calls/tool-call-service.js';
import { BuiltInExecutor, type BuiltInTool, type ToolExecutor } from '../calls/tool-contract.js';
import type { Logger } from '../core/logger.js';
import { countTokens } from '../core/tokens.js';
import type { Database } from '../db/client.js';
import { ChatService } from '../features/chat/service.js';
import { SkillService } from '../features/skill/service.js';
import { TokenService } from '../features/tokens/service.js';
import type { WorkspaceConfig } from '../features/workspace/rules/config.js';
import { WorkspaceService } from '../features/workspace/service.js';
import { WorldInfoService } from '../features/worldinfo/service.js';
import { JournalBus } from '../journal/bus.js';
import { JournalService } from '../journal/service.js';
import { ContextService } from '../model/context/service.js';
import { ModelService } from '../model/service.js';
import { builtInTools } from './built-in-tools.js';

/** Every service a request may reach, built once per process over one database. */
export interface Services {
  database: Database;
  logger: Logger;
  registry: RegistryService;
  policy: PolicyService;
  tokens: TokenService;
  runs: RunService;
  calls: ToolCallService;
  bus: JournalBus;
  journal: JournalService;
  dispatcher: Dispatcher;
  builtIns: BuiltInExecutor;
  workspaces: WorkspaceService;
  chats: ChatService;
  skills: SkillService;
  worldInfo: WorldInfoService;
  context: ContextService;
  models: ModelService;
  extensions: ExtensionBridge;
  /** MCP server configuration (admin) and this process's connections to the servers. */
  mcpServers: McpServerService;
  mcpConnections: McpConnectionManager;
  /** Registers the built-in tools and starts the journal bus, the extension bridge, the dispatcher and the MCP connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Extra BUILT_IN tools: tests pass their own here; production uses only `builtInTools()`. */
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
}

export function createServices(database: Database, logger: Logger, options: ServiceOptions = {}): Services {
  const db = database.db;
  const registry = new RegistryService(db);
  const policy = new PolicyService(db, registry);
  const runs = new RunService(db);
  const calls = new ToolCallService(db, runs, registry, policy);
  const bus = new JournalBus(database, logger, options.busPollMs);
  const chats = new ChatService(db);
  const builtIns = new BuiltInExecutor([...builtInTools(options.workspace), ...(options.extraTools ?? [])]);
  const extensions = new ExtensionBridge(database, logger, options.bridge);
  const mcpServers = new McpServerService(db);
  const mcpConnections = new McpConnectionManager(db, bus, logger, {
    ...defaultConnectionOptions,
    ...options.mcp,
  });
  mcpServers.onChange((name) => mcpConnections.reconcile(name));
  const dispatcher = new Dispatcher(
    db,
    calls,
    runs,
    registry,
    [builtIns, extensions.executor, ...(options.executors ?? []), new McpExecutor(mcpConnections)],
    bus,
    logger,
    {
      ...defaultDispatcherOptions,
      ...options.dispatcher,
    },
  );
  calls.onDispatch((callId) => dispatcher.dispatch(callId));
  const workspaces = new WorkspaceService(db, options.workspace);
  const worldInfo = new WorldInfoService(db, chats);
  const context = new ContextService(db, runs, chats, worldInfo, workspaces);
  return {
    database,
    logger,
    registry,
    policy,
    tokens: new TokenService(db),
    runs,
    calls,
    bus,
    journal: new JournalService(db, bus, runs, calls),
    dispatcher,
    builtIns,
    workspaces,
    chats,
    skills: new SkillService(db),
    worldInfo,
    context,
    models: new ModelService(db, runs, policy, calls, context),
    extensions,
    mcpServers,
    mcpConnections,
    async start() {
      // Building the tokenizer blocks the event loop for about a second; doing it now keeps that
      // pause out of the first tool call, where it would stall lease renewal.
      countTokens('warm up');
      for (const tool of builtIns.definitions) await registry.upsertBuiltIn(tool.spec);
      await bus.start();
      await extensions.start();
      dispatcher.start();
      await mcpConnections.start();
    },
    async stop() {
      await dispatcher.stop();
      await extensions.stop();
      await mcpConnections.stop();
      await bus.stop();
    },
  };
}
