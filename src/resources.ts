// Doctrine content as MCP resources (doctrine://...). Every read carries the doctrine
// fields and a signature over the content hash in `_meta`, like tool outputs do.
import type { Doctrine } from './doctrine/types.js';
import { documentUri, publicRule, ruleUri } from './doctrine/uris.js';
import { sha256Tag } from './shared/hash.js';
import { canonicalJson } from './signing/canonical.js';
import { type DoctrineFooter, SIGNED_MESSAGE } from './signing/format.js';
import type { Signer } from './signing/signer.js';

export const RESOURCE_SIGNATURE_FORMAT = 'signet-resource/2';
const RESOURCE_META_KEY = 'signet/footer';

export interface ResourceEntry {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

export interface ResourceSet {
  list: ResourceEntry[];
  templates: { uriTemplate: string; name: string; title: string; description: string; mimeType: string }[];
  read(uri: string): { contents: Record<string, unknown>[] } | null;
}

type Read = { contents: Record<string, unknown>[] };

export function buildResources(doctrine: Doctrine, footer: DoctrineFooter, signer: Signer): ResourceSet {
  const list: ResourceEntry[] = [];
  // Each read is hashed and signed on first use, not at start: a stdio client that never reads
  // a resource does not wait for 60-odd signatures. Ed25519 is deterministic: same bytes either way.
  const reads = new Map<string, () => Read>();
  const add = (entry: ResourceEntry, content: () => string, listed: boolean) => {
    if (listed) list.push(entry);
    let read: Read | undefined;
    reads.set(entry.uri, () => (read ??= signedRead(entry, content())));
  };
  const signedRead = (entry: ResourceEntry, text: string): Read => {
    const contentHash = sha256Tag(text);
    return {
      contents: [
        {
          uri: entry.uri,
          mimeType: entry.mimeType,
          text,
          _meta: {
            [RESOURCE_META_KEY]: {
              ...footer,
              signature_format: RESOURCE_SIGNATURE_FORMAT,
              content_hash: contentHash,
              // Binds the URI and media type too (SIGNED_MESSAGE.resource): under /1 it did not.
              content_signature: signer.sign(SIGNED_MESSAGE.resource(RESOURCE_SIGNATURE_FORMAT, entry.uri, entry.mimeType, contentHash)),
            },
          },
        },
      ],
    };
  };

  add(
    {
      uri: 'doctrine://manifest',
      name: 'manifest',
      title: 'Doctrine manifest',
      description: 'sha256sum-format list of every doctrine file; its SHA-256 is doctrine_hash.',
      mimeType: 'text/plain',
    },
    () => doctrine.manifest.text,
    true,
  );
  add(
    {
      uri: 'doctrine://facts-schema',
      name: 'facts-schema',
      title: 'Facts schema',
      description: 'JSON Schema of the facts doctrine_evaluate accepts.',
      mimeType: 'application/schema+json',
    },
    () => canonicalJson(doctrine.meta.facts_schema),
    true,
  );
  for (const d of doctrine.documents) {
    // The file text itself, so content_hash equals the file's line in the manifest.
    add(
      { uri: documentUri(d.id), name: d.id, title: d.title, description: `Doctrine document: ${d.title}`, mimeType: 'text/markdown' },
      () => d.source,
      true,
    );
  }
  for (const r of doctrine.rules) {
    add(
      { uri: ruleUri(r.id), name: r.id, title: r.title, description: `Rule ${r.id} (${r.severity})`, mimeType: 'application/json' },
      () => canonicalJson(publicRule(r)),
      false,
    );
  }
  return {
    list,
    templates: [
      {
        uriTemplate: 'doctrine://documents/{id}',
        name: 'document',
        title: 'Doctrine document',
        description: 'A doctrine document by id.',
        mimeType: 'text/markdown',
      },
      {
        uriTemplate: 'doctrine://rules/{id}',
        name: 'rule',
        title: 'Doctrine rule',
        description: 'A rule by id, as canonical JSON.',
        mimeType: 'application/json',
      },
    ],
    read: (uri) => reads.get(uri)?.() ?? null,
  };
}
