import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/bundle/signet.js', import.meta.url));
export const DEFAULT_DOCTRINE = fileURLToPath(new URL('../../doctrine/', import.meta.url));
export const MINI_DOCTRINE = fileURLToPath(new URL('../fixtures/doctrine-mini/', import.meta.url));
export const FACTS = (name: string) => fileURLToPath(new URL(`../fixtures/facts/${name}.json`, import.meta.url));
