// A Compose project as `docker compose -f A -f B` builds it: each file interpolated with the
// project's .env (and the variables handed in), `extends` applied, the files merged in order
// with the compose-spec merge rules (merge.md), `include` loaded, profiles applied. Every value
// keeps the file and line it came from, so facts can point at the line that decided them.
import { posix } from 'node:path';
import { dirOf, type Inputs } from '../inputs.js';
import type { At } from '../sheet.js';
import { Override, RESET, readYaml, type YamlDoc } from '../yaml-lines.js';
import { interpolateTree, parseDotenv, Unresolved } from './interpolate.js';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Unresolved);

export interface ComposeService {
  name: string;
  spec: Obj;
  /** The variables a value at `path` was interpolated from (empty when written literally). */
  varsAt(...path: (string | number)[]): string[];
  /** Where the value at `path` (keys under the service) was last set. */
  at(...path: (string | number)[]): At;
}

export interface ComposeProject {
  name: string;
  /** The first file named (`-f`): the project directory and the deployments' names come from it. */
  entry: string;
  /** The files merged, in order (includes first). */
  files: string[];
  /** Files only an `extends` names, read for the services it takes from them. */
  extended: string[];
  services: Map<string, ComposeService>;
  /** Services left out because none of their profiles is enabled. */
  inactive: { name: string; profiles: string[]; at: At; spec: Record<string, unknown>; service: ComposeService }[];
  networks: Obj;
  networkAt(name: string): At;
  secrets: Obj;
  /** The variables interpolation used, with where each was set (.env line, or none for --env). */
  env: Map<string, string>;
  envAt(name: string): At | null;
  notes: string[];
}

/** Service keys the compose spec defines as lists (never a map). */
const LIST_KEYS = ['volumes', 'ports', 'expose', 'cap_add', 'cap_drop', 'security_opt', 'devices', 'secrets', 'configs', 'links'];

export interface ComposeOptions {
  /** Variables as if set in the shell (they win over .env). */
  env?: Record<string, string>;
  profiles?: string[];
}

class Origins {
  readonly map = new Map<string, At>();
  set(path: readonly (string | number)[], at: At) {
    this.map.set(path.join('\u0001'), at);
  }
  /** Record every key of `value` (not list items) as coming from `doc` at `base`. */
  record(value: unknown, file: string, doc: YamlDoc, base: readonly (string | number)[], rel: readonly (string | number)[] = []) {
    this.set(rel, { file, line: doc.line([...base, ...rel]) });
    if (isObj(value)) for (const [k, v] of Object.entries(value)) this.record(v, file, doc, base, [...rel, k]);
  }
  get(path: readonly (string | number)[]): At | undefined {
    for (let n = path.length; n >= 0; n--) {
      const at = this.map.get(path.slice(0, n).join('\u0001'));
      if (at) return at;
    }
    return undefined;
  }
}

interface RawService {
  spec: Obj;
  origins: Origins;
  vars: Map<string, string[]>;
}

const VAR = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g;
/** Paths (keys joined) of the strings that name variables in a service as written. */
function variablesIn(raw: unknown, path: string[], out: Map<string, string[]>): void {
  if (typeof raw === 'string') {
    const names = [...raw.replace(/\$\$/g, '').matchAll(VAR)].map((m) => m[1]!);
    if (names.length) out.set(path.join('\u0001'), names);
  } else if (Array.isArray(raw)) {
    raw.forEach((v, i) => {
      // environment in list form: KEY=${VAR} is recorded under the key, like the map form.
      if (path[path.length - 1] === 'environment' && typeof v === 'string' && v.includes('='))
        variablesIn(v.slice(v.indexOf('=') + 1), [...path, v.split('=')[0]!], out);
      else variablesIn(v, [...path, String(i)], out);
    });
  } else if (isObj(raw)) for (const [k, v] of Object.entries(raw)) variablesIn(v, [...path, k], out);
}

interface LoadedFile {
  path: string;
  top: Obj;
  doc: YamlDoc;
  services: Map<string, RawService>;
}

const REPLACED = new Set(['command', 'entrypoint']);
const MAPPED = new Set(['environment', 'labels', 'sysctls', 'annotations']);

/** `environment`/`labels`/`build.args` in list form (KEY=VAL) as a map; a bare KEY is a variable passed from the shell: unresolved. */
export function asMap(v: unknown): Obj {
  if (isObj(v)) return { ...v };
  const out: Obj = {};
  if (Array.isArray(v)) {
    for (const item of v) {
      // `- API_KEY=${API_KEY}` with the variable unset: the key is written, the value is not known.
      if (item instanceof Unresolved) {
        const eq = item.asEmpty.indexOf('=');
        const key = eq < 0 ? item.asEmpty : item.asEmpty.slice(0, eq);
        // The template keeps `${NAME}` where the value has it: `postgresql://user:${DB_PASSWORD}@db`.
        const teq = item.template.indexOf('=');
        if (key)
          out[key] = new Unresolved(
            item.variables,
            eq < 0 ? '' : item.asEmpty.slice(eq + 1),
            item.required,
            item.fallback,
            item.opaque,
            eq < 0 || teq < 0 ? '' : item.template.slice(teq + 1),
          );
        continue;
      }
      if (typeof item !== 'string') continue;
      const eq = item.indexOf('=');
      if (eq < 0) out[item] = new Unresolved([item], '', null);
      else out[item.slice(0, eq)] = item.slice(eq + 1);
    }
  }
  return out;
}

/** The key a list item is merged by (merge.md: volumes and secrets by target, ports as written). */
function itemKey(field: string, item: unknown): string {
  if (field === 'volumes' || field === 'tmpfs') {
    if (typeof item === 'string') return item.split(':')[1] ?? item;
    if (isObj(item)) return String(item['target']);
  }
  if (field === 'secrets' || field === 'configs') {
    if (typeof item === 'string') return item;
    if (isObj(item)) return String(item['target'] ?? item['source']);
  }
  return JSON.stringify(item instanceof Unresolved ? item.asEmpty : item);
}

function mergeService(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === RESET) {
      delete out[k];
      continue;
    }
    if (v instanceof Override) {
      out[k] = v.value;
      continue;
    }
    const prev = out[k];
    if (prev === undefined || REPLACED.has(k)) out[k] = v;
    else if (MAPPED.has(k)) out[k] = { ...asMap(prev), ...asMap(v) };
    else if (k === 'networks') out[k] = { ...networksMap(prev), ...networksMap(v) };
    else if (k === 'healthcheck' && isObj(prev) && isObj(v)) out[k] = { ...prev, ...v };
    else if (Array.isArray(prev) && Array.isArray(v)) {
      const byKey = new Map(prev.map((i) => [itemKey(k, i), i] as const));
      for (const i of v) byKey.set(itemKey(k, i), i);
      out[k] = [...byKey.values()];
    } else if (isObj(prev) && isObj(v)) out[k] = mergeDeep(prev, v);
    else out[k] = v;
  }
  return out;
}

function mergeDeep(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (v === RESET) delete out[k];
    else if (v instanceof Override) out[k] = v.value;
    else out[k] = isObj(out[k]) && isObj(v) ? mergeDeep(out[k] as Obj, v) : v;
  }
  return out;
}

export function networksMap(v: unknown): Obj {
  if (Array.isArray(v)) return Object.fromEntries(v.map((n) => [String(n), null]));
  return isObj(v) ? { ...v } : {};
}

/** The first service (`service NAME in FILE`) whose env_file requires the project's .env, or null. */
/**
 * A service of an included file, its relative paths made relative to the project directory:
 * Compose resolves them from the included file's own directory (compose-spec include.md), where
 * an override's resolve from the project's. Build contexts and bind mounts (an env_file is read
 * from the file that names it where it is read).
 */
function rebased(spec: Obj, fileDir: string, projectDir: string): Obj {
  const move = (p: string) => {
    const to = posix.relative(projectDir || '.', posix.join(fileDir || '.', p));
    return to === '' ? '.' : to.startsWith('.') ? to : `./${to}`;
  };
  // A bind mount's source starts with `.`; a build context is any path not absolute, home or remote.
  const local = (p: unknown): p is string => typeof p === 'string' && p.startsWith('.');
  const relative = (p: unknown): p is string => typeof p === 'string' && !/^[/~]|^[\w.+-]+:\/\/|^git@/.test(p);
  const out: Obj = { ...spec };
  const build = spec['build'];
  if (relative(build)) out['build'] = move(build);
  else if (isObj(build) && (build['context'] === undefined || relative(build['context'])))
    out['build'] = { ...build, context: move(typeof build['context'] === 'string' ? build['context'] : '.') };
  if (Array.isArray(spec['volumes']))
    out['volumes'] = spec['volumes'].map((v) => {
      if (typeof v === 'string') {
        const [source, ...rest] = v.split(':');
        return local(source) ? [move(source), ...rest].join(':') : v;
      }
      return isObj(v) && v['type'] !== 'volume' && local(v['source']) ? { ...v, source: move(v['source']) } : v;
    });
  return out;
}

function servicesNeedingDotenv(inputs: Inputs, files: string[], dotenvPath: string, parse: (path: string) => YamlDoc[]): string | null {
  for (const path of files) {
    if (!inputs.get(path)) continue;
    let top: unknown;
    try {
      top = parse(path)[0]?.value;
    } catch {
      // Loading the file says what is wrong with it.
      continue;
    }
    const services = isObj(top) && isObj(top['services']) ? (top['services'] as Obj) : {};
    for (const [name, spec] of Object.entries(services)) {
      const envFile = isObj(spec) ? spec['env_file'] : undefined;
      for (const e of Array.isArray(envFile) ? envFile : envFile === undefined ? [] : [envFile]) {
        const p = typeof e === 'string' ? e : isObj(e) && typeof e['path'] === 'string' ? e['path'] : null;
        const required = !(isObj(e) && e['required'] === false);
        if (p !== null && required && inputs.resolve(path, p) === dotenvPath) return `service ${name} in ${path}`;
      }
    }
  }
  return null;
}

/** Load one compose project from `files` (merged in order). Throws on a file that is not valid YAML. */
export function loadCompose(inputs: Inputs, files: string[], options: ComposeOptions = {}): ComposeProject {
  const notes: string[] = [];
  const projectDir = dirOf(files[0]!);
  const dotenvPath = posix.join(projectDir, '.env');
  const dotenv = inputs.get(dotenvPath);
  const parsed = dotenv ? parseDotenv(dotenv.text) : { values: new Map<string, string>(), lines: new Map<string, number>() };
  const env = new Map(parsed.values);
  for (const [k, v] of Object.entries(options.env ?? {})) env.set(k, v);
  const envAt = (name: string): At | null => {
    if (options.env && name in options.env) return null;
    const line = parsed.lines.get(name);
    return line === undefined ? null : { file: dotenv!.path, line };
  };

  // A service's env_file that needs the project's .env (required unless `required: false`) means
  // Compose cannot start without it, and interpolation reads the same file: when it is not among
  // the files, any variable may be set there, and a default in the compose file decides nothing.
  // Each file parsed once, for this look ahead and for loading.
  const yamlOf = new Map<string, YamlDoc[]>();
  const parse = (path: string): YamlDoc[] => {
    if (!yamlOf.has(path)) yamlOf.set(path, readYaml(inputs.get(path)!.text, { composeTags: true }));
    return yamlOf.get(path)!;
  };
  const needsDotenv = dotenv ? null : servicesNeedingDotenv(inputs, files, dotenvPath, parse);
  const opaque = needsDotenv !== null;
  if (needsDotenv)
    notes.push(
      `${needsDotenv} needs ${dotenvPath} (env_file), which is not among the files: every variable it may set is undecided, defaults included; add the file, or set the variables with --env`,
    );

  const order: string[] = [];
  const loaded: LoadedFile[] = [];
  const seen = new Set<string>();
  const load = (path: string, depth: number, stack: string[] = []) => {
    // Compose refuses an include cycle; a file included twice along two paths is read once.
    if (stack.includes(path)) throw new Error(`include cycle: ${[...stack.slice(stack.indexOf(path)), path].join(' → ')}`);
    if (depth > 8) throw new Error(`includes nested more than 8 deep: ${[...stack, path].join(' → ')}`);
    if (seen.has(path)) return;
    seen.add(path);
    const file = inputs.get(path);
    if (!file) {
      notes.push(`${path} is named but not among the files read: its services are not described`);
      return;
    }
    const doc = parse(path)[0];
    if (!doc || !isObj(doc.value)) return;
    const rawTop = doc.value as Obj;
    const top = interpolateTree(doc.value, env, opaque) as Obj;
    // include: loaded first, relative to the including file (compose-spec include.md).
    const include = Array.isArray(top['include']) ? top['include'] : [];
    for (const entry of include) {
      const paths = typeof entry === 'string' ? [entry] : isObj(entry) ? [entry['path']].flat() : [];
      for (const p of paths) if (typeof p === 'string') load(inputs.resolve(path, p), depth + 1, [...stack, path]);
    }
    loaded.push({ path, top, doc, services: servicesIn(path, doc, top, rawTop, depth > 0) });
    order.push(path);
  };
  // A file's services, each with the lines it was written on; an included or extended file's
  // relative paths rebased onto the project directory, as Compose resolves them from their own file.
  const servicesIn = (path: string, doc: YamlDoc, top: Obj, rawTop: Obj, rebase: boolean): Map<string, RawService> => {
    const services = new Map<string, RawService>();
    for (const [name, spec] of Object.entries(isObj(top['services']) ? (top['services'] as Obj) : {})) {
      if (!isObj(spec)) continue;
      const origins = new Origins();
      origins.record(spec, path, doc, ['services', name]);
      const vars = new Map<string, string[]>();
      const rawSpec = isObj(rawTop['services']) ? (rawTop['services'] as Obj)[name] : undefined;
      variablesIn(rawSpec, [], vars);
      const s: RawService = { spec: rebase ? rebased(spec, dirOf(path), projectDir) : { ...spec }, origins, vars };
      // environment and labels in list form (KEY=VALUE) read as maps, each key with its item's line.
      for (const field of ['environment', 'labels']) {
        if (!Array.isArray(spec[field])) continue;
        (spec[field] as unknown[]).forEach((item, i) => {
          // An item whose value is a variable unset here too (`- PASSWORD=${PASSWORD:-Chang3d!}`): its key is written.
          const text = typeof item === 'string' ? item : item instanceof Unresolved ? item.asEmpty : null;
          if (text !== null) origins.set([field, text.split('=')[0]!], { file: path, line: doc.line(['services', name, field, i]) });
        });
        s.spec[field] = asMap(spec[field]);
      }
      // A Swarm stack's `deploy.labels` (what Traefik's swarm provider reads), in list form too.
      const deploy = spec['deploy'];
      if (isObj(deploy) && Array.isArray(deploy['labels'])) {
        (deploy['labels'] as unknown[]).forEach((item, i) => {
          const text = typeof item === 'string' ? item : item instanceof Unresolved ? item.asEmpty : null;
          if (text !== null)
            origins.set(['deploy', 'labels', text.split('=')[0]!], {
              file: path,
              line: doc.line(['services', name, 'deploy', 'labels', i]),
            });
        });
        s.spec['deploy'] = { ...(isObj(s.spec['deploy']) ? s.spec['deploy'] : deploy), labels: asMap(deploy['labels']) };
      }
      services.set(name, s);
    }
    return services;
  };
  for (const f of files) load(f, 0);

  // A file only `extends` names is read for its services, not added to the project (compose-spec extends.md).
  const extendedFiles = new Map<string, LoadedFile | undefined>();
  const extendedFile = (path: string): LoadedFile | undefined => {
    if (!extendedFiles.has(path)) {
      const doc = inputs.get(path) ? parse(path)[0] : undefined;
      const top = doc && isObj(doc.value) ? (interpolateTree(doc.value, env, opaque) as Obj) : undefined;
      extendedFiles.set(
        path,
        doc && top ? { path, top, doc, services: servicesIn(path, doc, top, doc.value as Obj, dirOf(path) !== projectDir) } : undefined,
      );
    }
    return extendedFiles.get(path);
  };

  // extends: the base service merged under the service (same file, or another loaded file),
  // a chain resolved from its end; Compose refuses a cycle, and so does this.
  const resolving: string[] = [];
  const resolveExtends = (lf: LoadedFile, name: string): RawService | undefined => {
    const s = lf.services.get(name);
    const ext = s?.spec['extends'];
    if (!s || !ext) return s;
    const key = `${lf.path}:${name}`;
    if (resolving.includes(key)) throw new Error(`extends cycle: ${[...resolving.slice(resolving.indexOf(key)), key].join(' → ')}`);
    const baseName = typeof ext === 'string' ? ext : isObj(ext) ? String(ext['service']) : '';
    const baseFile = isObj(ext) && typeof ext['file'] === 'string' ? inputs.resolve(lf.path, ext['file'] as string) : lf.path;
    const baseLf = loaded.find((l) => l.path === baseFile) ?? extendedFile(baseFile);
    resolving.push(key);
    const base = baseLf && resolveExtends(baseLf, baseName);
    resolving.pop();
    if (!base) {
      notes.push(`${lf.path}: service ${name} extends ${baseName} in ${baseFile}, which is not among the files read`);
      return s;
    }
    const merged = mergeService(base.spec, s.spec);
    delete merged['extends'];
    const origins = new Origins();
    for (const [k, v] of base.origins.map) origins.map.set(k, v);
    for (const [k, v] of s.origins.map) origins.map.set(k, v);
    const out = { spec: merged, origins, vars: new Map([...base.vars, ...s.vars]) };
    lf.services.set(name, out);
    return out;
  };
  for (const lf of loaded) for (const name of [...lf.services.keys()]) resolveExtends(lf, name);

  const services = new Map<string, RawService>();
  const networks: Obj = {};
  const networkLines = new Map<string, At>();
  const secrets: Obj = {};
  let projectName: string | undefined;
  for (const lf of loaded) {
    if (typeof lf.top['name'] === 'string') projectName = lf.top['name'];
    for (const [name, s] of lf.services) {
      const prev = services.get(name);
      if (!prev) services.set(name, s);
      else {
        const origins = new Origins();
        for (const [k, v] of prev.origins.map) origins.map.set(k, v);
        for (const [k, v] of s.origins.map) origins.map.set(k, v);
        services.set(name, { spec: mergeService(prev.spec, s.spec), origins, vars: new Map([...prev.vars, ...s.vars]) });
      }
    }
    for (const [n, v] of Object.entries(isObj(lf.top['networks']) ? (lf.top['networks'] as Obj) : {})) {
      networks[n] = isObj(networks[n]) && isObj(v) ? mergeDeep(networks[n] as Obj, v) : (v ?? {});
      networkLines.set(n, { file: lf.path, line: lf.doc.line(['networks', n]) });
    }
    for (const [n, v] of Object.entries(isObj(lf.top['secrets']) ? (lf.top['secrets'] as Obj) : {})) secrets[n] = v;
  }

  // Profiles as the Compose CLI takes them: --profile, else COMPOSE_PROFILES (from .env or --env)
  // split at commas. Unset splits to one empty name, so `profiles: [""]` is the default profile:
  // on when none is named, off under --profile x (getzep/graphiti's compose file).
  const enabled = new Set(
    options.profiles?.length ? options.profiles : (env.get('COMPOSE_PROFILES') ?? '').split(',').map((p) => p.trim()),
  );
  const out = new Map<string, ComposeService>();
  const inactive: ComposeProject['inactive'] = [];
  for (const name of [...services.keys()].sort()) {
    const s = services.get(name)!;
    const profiles = Array.isArray(s.spec['profiles']) ? (s.spec['profiles'] as unknown[]).map(String) : [];
    const at = (...path: (string | number)[]) => s.origins.get(path) ?? { file: order[0]!, line: 1 };
    // Keys the compose spec makes lists: a map there (Forge-Space/mcp-gateway's config/services.yml,
    // a catalog with `volumes: {"./w": "/w"}`) is a file Compose refuses, said as such.
    for (const key of LIST_KEYS) {
      const v = s.spec[key];
      if (v !== undefined && v !== null && !Array.isArray(v) && !(key !== 'volumes' && typeof v === 'string'))
        throw new Error(
          `service ${name}: ${key} is ${typeof v === 'object' ? 'a map' : `the ${typeof v} ${JSON.stringify(v)}`}, not a list: Compose refuses the file (${at(key).file}:${at(key).line})`,
        );
    }
    const service: ComposeService = { name, spec: s.spec, at, varsAt: (...path) => s.vars.get(path.join('\u0001')) ?? [] };
    if (profiles.length && !enabled.has('*') && !profiles.some((p) => enabled.has(p))) {
      inactive.push({ name, profiles, at: at(), spec: s.spec, service });
      continue;
    }
    out.set(name, service);
  }
  return {
    name: projectName ?? (posix.basename(projectDir) || 'default'),
    entry: files[0]!,
    files: order,
    extended: [...extendedFiles].filter(([, f]) => f !== undefined).map(([path]) => path),
    services: out,
    inactive,
    networks,
    networkAt: (n) => networkLines.get(n) ?? { file: order[0]!, line: 1 },
    secrets,
    env,
    envAt,
    notes,
  };
}
