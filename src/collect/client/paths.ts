// Which client configuration files are a project's (kept with its files) and which a client's own.

/** Client configurations a project keeps with its files (Claude Code's project scope, the editors' and agents' workspace files). */
export const PROJECT_CONFIG =
  /(^|\/)(\.mcp\.json|\.(vscode|cursor|roo|amazonq)\/mcp\.json|\.kiro\/settings\/mcp\.json|\.(vscode|zed|gemini)\/settings\.json|\.continue\/(config|mcpServers\/[^/]+)\.ya?ml)$/;

/**
 * A client's own configuration file, by name: what a desktop client, an editor or an agent reads on
 * the user's machine, or one named for such a client (cstortz/monorepo_mcp's cursor-mcp-config.json).
 */
export const CLIENT_OWN_FILE =
  /(^|\/)((claude[\w-]*|gemini-extension|manifest|plugin|settings|\.claude|mcp|\.mcp)\.json|opencode\.jsonc?|[^/]+\.(toml|ya?ml))$|(^|\/)([^/]*[-_.])?(cursor|claude|vscode|windsurf|cline|roo|gemini|zed|kiro|codex)([-_.][^/]*)?\.jsonc?$/i;
