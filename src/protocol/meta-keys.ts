// The reserved `_meta` keys of the 2026-07-28 per-request envelope and results.
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
