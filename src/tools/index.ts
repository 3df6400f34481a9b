import { deploymentCheck } from './deployment-check.js';
import { doctrineEvaluate } from './doctrine-evaluate.js';
import { doctrineGet } from './doctrine-get.js';
import { doctrineInfo } from './doctrine-info.js';
import { doctrineSearch } from './doctrine-search.js';
import type { ToolDefinition } from './types.js';
import { verifyOutputTool } from './verify-output.js';

/** Every tool the server exposes, in tools/list order. */
export const TOOLS: ToolDefinition<never>[] = [
  doctrineInfo,
  doctrineSearch,
  doctrineGet,
  doctrineEvaluate,
  deploymentCheck,
  verifyOutputTool,
];
