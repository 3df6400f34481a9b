// Where secrets reach a container, worst first: the doctrine asks for the worst way used.
import type { At } from './sheet.js';

const WORST_FIRST = ['baked_into_image', 'manifest_plaintext', 'config_map', 'environment', 'mounted_files', 'secret_manager'];

export function worstSecrets<T extends { kind: string; at: At; why: string }>(found: T[]): T {
  return [...found].sort((a, b) => WORST_FIRST.indexOf(a.kind) - WORST_FIRST.indexOf(b.kind))[0]!;
}
