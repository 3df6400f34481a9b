import MiniSearch from 'minisearch';
import type { Doctrine } from './types.js';

export type EntryKind = 'document' | 'rule';

interface IndexedEntry {
  id: string;
  kind: EntryKind;
  title: string;
  text: string;
  /** A rule's keywords (the specification's terms) and the facts it reads, e.g. "token passthrough". */
  terms: string;
}

export interface SearchHit {
  id: string;
  kind: EntryKind;
  title: string;
  /** Relevance, rounded to 4 decimals so ties (and their id tie-break) are stable. */
  score: number;
  /** Words of the query that matched. */
  matched_terms: string[];
  snippet: string;
}

export interface SearchOptions {
  limit: number;
  kind?: EntryKind | undefined;
}

const SNIPPET_CHARS = 200;

/** Markdown to plain text, just enough for readable snippets. */
function plain(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^#+\s*/gm, '')
    .replace(/[*_>|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function snippetFor(text: string, terms: string[]): string {
  const lower = text.toLowerCase();
  let at = -1;
  for (const t of terms) {
    const i = lower.indexOf(t.toLowerCase());
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  if (at < 0) at = 0;
  let start = Math.max(0, at - 60);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space >= 0 && space < at) start = space + 1;
  }
  let end = Math.min(text.length, start + SNIPPET_CHARS);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > at) end = space;
  }
  return (start > 0 ? '…' : '') + text.slice(start, end) + (end < text.length ? '…' : '');
}

/**
 * Full-text index over documents and rules, built once per doctrine, on the first search
 * (building it is ~10 % of cold start, and many sessions never search).
 */
export class DoctrineSearch {
  readonly #doctrine: Doctrine;
  #built: { index: MiniSearch<IndexedEntry>; entries: Map<string, IndexedEntry> } | null = null;

  constructor(doctrine: Doctrine) {
    this.#doctrine = doctrine;
  }

  #build(): { index: MiniSearch<IndexedEntry>; entries: Map<string, IndexedEntry> } {
    const doctrine = this.#doctrine;
    const index = new MiniSearch<IndexedEntry>({
      fields: ['id', 'title', 'terms', 'text'],
      storeFields: ['kind', 'title'],
      // A rule's keywords and fact names are what readers type: they weigh like its title.
      searchOptions: { boost: { id: 3, title: 2, terms: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
    });
    const entries: IndexedEntry[] = [
      ...doctrine.documents.map((d) => ({ id: d.id, kind: 'document' as const, title: d.title, text: plain(d.body), terms: '' })),
      ...doctrine.rules.map((r) => ({
        id: r.id,
        kind: 'rule' as const,
        title: r.title,
        text: `${r.rationale} ${r.remediation} ${r.category} ${r.severity}`,
        // Fact paths split into words ("authentication.token_passthrough" → "authentication token passthrough").
        terms: [...(r.keywords ?? []), ...r.facts.map((f) => f.replace(/[._]/g, ' '))].join(' '),
      })),
    ];
    const map = new Map<string, IndexedEntry>();
    for (const e of entries) map.set(e.id, e);
    index.addAll(entries);
    return { index, entries: map };
  }

  search(query: string, options: SearchOptions): { total: number; hits: SearchHit[] } {
    const built = (this.#built ??= this.#build());
    const kind = options.kind;
    const results = built.index.search(query, kind ? { filter: (r) => r['kind'] === kind } : {});
    const hits = results
      .map((r) => {
        const entry = built.entries.get(String(r.id))!;
        const matched = [...new Set(r.terms)].sort();
        return {
          id: entry.id,
          kind: entry.kind,
          title: entry.title,
          score: Math.round(r.score * 10_000) / 10_000,
          matched_terms: matched,
          snippet: snippetFor(entry.text, matched),
        };
      })
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { total: hits.length, hits: hits.slice(0, options.limit) };
  }
}
