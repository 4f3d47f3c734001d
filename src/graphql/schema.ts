import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './tool.js';
import './policy.js';
import './token.js';
import './tool-result.js';
import './run.js';
import './tool-call.js';
import './journal.js';
import './resource.js';
import './workspace.js';
import './chat.js';
import './provider.js';
import './context-frame.js';
import './extension.js';
import './mcp.js';

export const schema = builder.toSchema();

/** The committed `schema.graphql`: sorted, so that a diff shows only real changes. */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
