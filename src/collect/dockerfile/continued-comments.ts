// Docker drops a comment line inside a continued instruction before it parses the line
// (MCP-Manager/MCP-Checklists' ENTRYPOINT explains its next line with `# Start Supergateway …`,
// inside the JSON array); dockerfile-ast keeps it, and the JSON it breaks reads as shell form.

/**
 * The Dockerfile's text with each comment line inside a continued instruction replaced by a
 * bare continuation, so the instruction reads as Docker reads it and every line keeps its number.
 */
export function withoutContinuedComments(text: string): string {
  const lines = text.split('\n');
  // The escape directive, before any instruction (`# escape=\``); a backslash by default.
  let escapeChar = '\\';
  for (const line of lines) {
    const m = /^#\s*escape\s*=\s*(\S)\s*$/i.exec(line.trim());
    if (m) escapeChar = m[1]!;
    else if (!/^#\s*\w+\s*=/.test(line.trim())) break;
  }
  let continued = false;
  return lines
    .map((line) => {
      const trimmed = line.replace(/\r$/, '').trim();
      if (continued && trimmed.startsWith('#')) return escapeChar;
      continued = trimmed.endsWith(escapeChar) || (continued && trimmed === '');
      return line;
    })
    .join('\n');
}
