import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import '../calls/graphql/tool.js';
import '../calls/graphql/policy.js';
import '../calls/graphql/policy-explain.js';
import '../features/tokens/graphql.js';
import '../calls/graphql/tool-result.js';
import '../calls/graphql/run.js';
import '../calls/graphql/tool-call.js';
import '../calls/graphql/approval-fields.js';
import '../calls/graphql/approval-batch.js';
import '../calls/graphql/approval-queue.js';
import '../journal/graphql.js';
import '../calls/graphql/resource.js';
import '../features/workspace/graphql.js';
import '../features/chat/graphql.js';
import '../features/skill/graphql.js';
import '../features/worldinfo/graphql/lorebooks.js';
import '../features/worldinfo/graphql/characters.js';
import '../model/graphql.js';
import '../model/context/graphql.js';
import '../bridge/extension/graphql.js';
import '../bridge/mcp/graphql.js';
import '../features/models/graphql.js';
import '../features/grants/graphql.js';
import '../features/notifications/graphql.js';
import '../features/agent/graphql.js';
import '../features/gateway/graphql.js';

export const schema = builder.toSchema();

/** The committed `schema.graphql`: sorted, so that a diff shows only real changes. */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
