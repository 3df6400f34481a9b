// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell ${VAR} references, not JavaScript templates
import { describe, expect, it } from 'vitest';
import { readDockerfile } from './read.js';
import { takenBranches } from './taken-branches.js';

const args = (o: Record<string, string>) => (n: string) => o[n];

describe('the branch of an `if` a build arg settles', () => {
  it('drops a step a build arg leaves off by default, keeps the else part, and takes the then part when on', () => {
    const script = 'if [ "$CERTS" = "true" ]; then curl -ksSL https://e.com/i.sh | sh; else echo none; fi && go mod download';
    expect(takenBranches(script, args({ CERTS: 'false' }))).toBe(' echo none;  && go mod download');
    expect(takenBranches(script, args({ CERTS: 'true' }))).toBe(' curl -ksSL https://e.com/i.sh | sh;  && go mod download');
  });

  it('reads [[ ]], test, != , -n and -z, and nested blocks outermost first', () => {
    expect(takenBranches('if [[ ${X} == 1 ]]; then a; fi', args({ X: '2' }))).toBe(' true ');
    expect(takenBranches('if test "$X" != 1; then a; fi', args({ X: '2' }))).toBe(' a; ');
    expect(takenBranches('if [ -n "$TOKEN" ]; then a; fi; b', args({ TOKEN: '' }))).toBe(' true ; b');
    expect(takenBranches('if [ -z "$TOKEN" ]; then a; fi', args({ TOKEN: '' }))).toBe(' a; ');
    expect(takenBranches('if [ "$A" = 1 ]; then if [ "$B" = 1 ]; then x; fi; fi', args({ A: '1', B: '0' }))).toBe('  true ; ');
    // Inside a subshell, its closing parenthesis a word of its own.
    expect(takenBranches('f() ( if [ "$A" = 1 ]; then a; fi )', args({ A: '1' }))).toBe('f() (  a;  )');
  });

  it('leaves as written what the files do not settle', () => {
    const open = [
      'if [ "$TARGETARCH" = "arm64" ]; then a; fi', // BuildKit sets it, whatever the default
      'if [ "$UNSET" = "true" ]; then a; fi',
      'if [ "$A" = 1 ] || [ "$B" = 1 ]; then a; fi',
      'if [ -f uv.lock ]; then uv sync --locked; else uv sync; fi',
      'if [ "$A" = "x*" ]; then a; elif [ "$A" = 2 ]; then b; fi',
      'if [ "$A" = 1 ]; then a; fi; fi', // does not nest
      'echo "if then fi"',
      'if [ "$(uname -m)" = "x86_64" ]; then a; fi',
    ];
    for (const s of open) expect(takenBranches(s, args({ TARGETARCH: 'amd64', A: '1', B: '0' }))).toBe(s);
    expect(takenBranches('if [ "$A" = 1 ]; then a; fi', args({ A: '$OTHER' }))).toBe('if [ "$A" = 1 ]; then a; fi');
  });

  it('jeeftor/abs-mcp: an opt-in installer off by default leaves the go.sum-held build locked; the compose arg turns it on', () => {
    const text = [
      'FROM golang:1.26-bookworm AS build',
      'ARG INSTALL_MITRE_CERTS=false',
      'RUN if [ "$INSTALL_MITRE_CERTS" = "true" ]; then \\',
      '\t\tapt-get update && \\',
      '\t\tcurl -ksSL https://gitlab.mitre.org/mitre-scripts/mitre-pki/raw/master/os_scripts/install_certs.sh | sh && \\',
      '\t\trm -rf /var/lib/apt/lists/*; \\',
      '\tfi',
      'COPY go.mod go.sum ./',
      'RUN go mod download',
      'FROM scratch',
      'COPY --from=build /out/abs-mcp /abs-mcp',
      'USER 65532:65532',
    ].join('\n');
    expect(readDockerfile('Dockerfile', text).installs.map((i) => [i.tool, i.locked])).toEqual([['go', true]]);
    const on = readDockerfile('Dockerfile', text, new Map([['INSTALL_MITRE_CERTS', 'true']]));
    expect(on.installs.map((i) => [i.tool, i.locked])).toEqual([
      ['script', false],
      ['go', true],
    ]);
  });
});
