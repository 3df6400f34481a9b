// How fixed an image reference is: a digest names one image, a full version tag one release,
// and a line of releases (a major or major.minor tag) moves with each release in it.
import { describe, expect, it } from 'vitest';
import { imagePin } from '../../../src/collect/roles.js';
import { collectWith, fact, inline } from '../../helpers/collect.js';

describe('an image reference', () => {
  it('by digest, full version, or a tag that moves', () => {
    expect(imagePin(`ghcr.io/acme/mcp@sha256:${'a'.repeat(64)}`)).toBe('digest');
    for (const tag of ['1.4.2', 'v0.20.0', '1.4.2-alpine', '2025.9.25', 'sha-3f2a9c1', '20241001'])
      expect(imagePin(`ghcr.io/acme/mcp:${tag}`), tag).toBe('exact_version');
    // whales-workshops/mcp-gateway-experiments: docker/mcp-gateway:v2, a major line.
    for (const tag of ['v2', '2', '3.12', '3.12-slim', '1-alpine', 'latest', 'main', 'edge', ''])
      expect(imagePin(`ghcr.io/acme/mcp${tag ? `:${tag}` : ''}`), tag || 'untagged').toBe('floating');
    // A registry port is no tag.
    expect(imagePin('localhost:5000/acme/mcp')).toBe('floating');
  });

  it('decides the release a Compose service runs', () => {
    const d = collectWith(
      inline({ 'compose.yaml': 'services:\n  mcp-gateway:\n    image: docker/mcp-gateway:v2\n    ports: ["127.0.0.1:8811:8811"]\n' }),
    ).deployments[0]!;
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
  });
});

describe("a Dockerfile built on a published MCP server's image", () => {
  const release = (from: string) => {
    const d = collectWith(
      inline({
        'compose.yaml': 'services:\n  app:\n    build: { context: ., dockerfile: Dockerfile.metamcp }\n    ports: ["12008:12008"]\n',
        // zenvite2/metamcp-installation's Dockerfile.metamcp extends the official image with the Docker CLI.
        'Dockerfile.metamcp': `FROM ${from}\nUSER root\nRUN apt-get update && apt-get install -y docker-cli\nUSER 1000\n`,
      }),
    ).deployments[0]!;
    return { value: fact(d, 'supply_chain.deployed_release'), why: d.sources['supply_chain.deployed_release']?.[0]?.why };
  };

  it('is as fixed as that reference: floating at latest, exact at a version', () => {
    expect(release('ghcr.io/metatool-ai/metamcp:latest')).toEqual({
      value: 'floating',
      why: 'FROM ghcr.io/metatool-ai/metamcp:latest: the final image is built on that image, named by a floating tag or none',
    });
    expect(release('ghcr.io/metatool-ai/metamcp:2.4.1').value).toBe('exact_version');
    // A runtime, or a base with no registry namespace (built by the project), is no server's release.
    expect(release('node:22-slim').value).toBeUndefined();
    expect(release('mcp-base:latest').value).toBeUndefined();
  });
});

describe('code a build downloads from a branch', () => {
  it('floats the image, whatever its lockfile holds', () => {
    // ethpandaops/xatu-mcp: a Go build from go.sum, and libllama_go.so from kelindar/search's main branch.
    const d = collectWith(
      inline({
        'go.mod': 'module example.com/mcp\n\ngo 1.24\n\nrequire github.com/mark3labs/mcp-go v0.32.0\n',
        'go.sum': 'github.com/mark3labs/mcp-go v0.32.0 h1:x\n',
        Dockerfile: [
          'FROM golang:1.24 AS builder',
          'WORKDIR /app',
          'COPY go.mod go.sum ./',
          'COPY . .',
          'RUN go build -o mcp ./cmd/mcp',
          'RUN curl -L -o /assets/libllama_go.so https://media.githubusercontent.com/media/kelindar/search/main/dist/linux-x64-avx/libllama_go.so',
          'FROM debian:bookworm-slim',
          'COPY --from=builder /app/mcp /app/mcp',
          'COPY --from=builder /assets/libllama_go.so /lib/',
          'USER 1000',
          'ENTRYPOINT ["/app/mcp"]',
          '',
        ].join('\n'),
      }),
    ).deployments[0]!;
    expect(fact(d, 'supply_chain.lockfile_enforced')).toBe(true);
    expect(fact(d, 'supply_chain.deployed_release')).toBe('floating');
    expect(d.sources['supply_chain.deployed_release']![0]).toMatchObject({ file: 'Dockerfile', line: 6 });
  });

  it('so does a git clone of a branch, not of a tag or a checked-out commit', () => {
    // redhat-gpte-devopsautomation/private-llm-aas's Containerfile: the server cloned from its default branch and built.
    const release = (run: string) => {
      const d = collectWith(
        inline({
          Containerfile: `FROM golang:1.24 AS build\nWORKDIR /src\n${run}\nFROM registry.access.redhat.com/ubi9/ubi-minimal\nCOPY --from=build /src/kubernetes-mcp-server/kubernetes-mcp-server /usr/local/bin/\nUSER 1001\nENTRYPOINT ["/usr/local/bin/kubernetes-mcp-server"]\n`,
        }),
      ).deployments[0]!;
      return { value: fact(d, 'supply_chain.deployed_release'), why: d.sources['supply_chain.deployed_release']?.[0]?.why };
    };
    expect(release('RUN git clone https://github.com/manusa/kubernetes-mcp-server.git && cd kubernetes-mcp-server && make build')).toEqual({
      value: 'floating',
      why: 'git clone https://github.com/manusa/kubernetes-mcp-server.git fetches what a branch or a "latest" link holds when the image is built',
    });
    expect(
      release('RUN git clone -b main https://github.com/manusa/kubernetes-mcp-server.git && make -C kubernetes-mcp-server build').value,
    ).toBe('floating');
    for (const pinned of [
      'RUN git clone --branch v0.0.50 https://github.com/manusa/kubernetes-mcp-server.git && make -C kubernetes-mcp-server build',
      'RUN git clone https://github.com/manusa/kubernetes-mcp-server.git\nRUN cd kubernetes-mcp-server && git checkout 3f2c1a9 && make build',
      // A repository of data (infiniflow/ragflow's resource: NLTK data, models) is no code of the image.
      'RUN git clone --depth 1 https://github.com/infiniflow/resource /tmp/resource\nRUN git clone --branch v0.0.50 https://github.com/manusa/kubernetes-mcp-server.git',
    ])
      expect(release(pinned).value, pinned).not.toBe('floating');
  });
});

describe('an exact version beside an install that follows its lockfile', () => {
  it('leaves the release open: that install may resolve anew', () => {
    // mittwald/mcp-server's Dockerfile: `npm install -g @mittwald/cli@1.12.0`, then `npm ci --ignore-scripts || npm install --ignore-scripts`.
    const release = (second: string) => {
      const d = collectWith(
        inline({
          Dockerfile: `FROM node:22-alpine\nWORKDIR /app\nRUN npm install -g @mittwald/cli@1.12.0\nCOPY package*.json ./\nRUN ${second}\nCOPY . .\nCMD ["node", "build/index.js"]\n`,
          'package.json': JSON.stringify({ name: 'mcp', dependencies: { '@modelcontextprotocol/sdk': '^1.20.0' } }),
          'package-lock.json': JSON.stringify({ name: 'mcp', lockfileVersion: 3, packages: {} }),
        }),
      ).deployments[0]!;
      return { value: fact(d, 'supply_chain.deployed_release'), why: d.reasons['supply_chain.deployed_release'] };
    };
    expect(release('npm ci --ignore-scripts || npm install --ignore-scripts')).toEqual({
      value: undefined,
      why: 'npm install -g @mittwald/cli@1.12.0 installs an exact version, but npm install --ignore-scripts uses the committed lockfile unless the manifest no longer matches it, and then resolves anew (npm ci makes that an error)',
    });
    // With the frozen install alone, the exact version is the loosest.
    expect(release('npm ci --ignore-scripts').value).toBe('exact_version');
  });
});
