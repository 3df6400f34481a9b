// Host paths mounted into a container, as doctrine 1.3's container.host_path_mounts sorts them:
// system and home paths, files of the deployment itself, or a path the files cannot place.

export type HostPathClass = 'host_system' | 'deployment_files' | 'unknown';

// /tmp is the host's shared scratch space: other processes' sockets live there (an ssh-agent's, X11's).
const SYSTEM =
  /^(\/|\/(etc|proc|sys|dev|var\/lib|var\/run|run|root|home|Users|usr|bin|sbin|lib|lib64|boot|var\/log|tmp|var\/tmp|Windows|ProgramData)(\/.*)?)$/;

/** A volume's source that is a host path, not a volume name: relative, absolute, home, a variable, or a Windows drive. */
export const isHostPath = (source: string): boolean => /^([./~$%]|[A-Za-z]:[\\/])/.test(source);

/** `SRC:DST[:mode]` split at its colons, a Windows source keeping its drive (`C:\Users\me\.ssh:/root/.ssh`). */
export function volumeParts(spec: string): { source: string; target: string | undefined } {
  const drive = /^[A-Za-z]:[\\/][^:]*/.exec(spec)?.[0];
  if (drive) return { source: drive, target: spec.slice(drive.length + 1).split(':')[0] || undefined };
  const [source = '', target] = spec.split(':');
  return { source, target };
}

/** A bind mount's source: relative to the project (its own files), a system or home path, or another absolute path. */
export function hostPathClass(source: string): HostPathClass {
  // A Windows path (`C:\Users\me\.ssh`) read as the same path from its drive's root.
  const s = source
    .trim()
    .replace(/^[A-Za-z]:[\\/]/, '/')
    .replace(/\\/g, '/');
  if (/^(~|\$HOME|\$\{HOME\}|%USERPROFILE%)/.test(s)) return 'host_system';
  if (/\.sock$/.test(s)) return 'host_system';
  // Compose reads a source that starts with `.` as a path of the project (topoteretes/cognee's `.env:/app/.env:ro`).
  if (/^\.{1,2}(\/|$)/.test(s) || (/^\.[^./]/.test(s) && !/(^|\/)\.\.(\/|$)/.test(s))) return 'deployment_files';
  // The project an editor or Claude Code has open (siakhooi/mcp-mariadb's
  // `${workspaceFolder}/example-config.yaml`), unless the path climbs out of it.
  if (/^\$\{(workspaceFolder|workspaceRoot|CLAUDE_PROJECT_DIR)\}(\/|$)/.test(s) && !/(^|\/)\.\.(\/|$)/.test(s)) return 'deployment_files';
  if (SYSTEM.test(s.replace(/\/+$/, '') || '/')) return 'host_system';
  return 'unknown';
}

/** The worst of several mounts: host_system, then a path the files cannot place, then deployment files; none without mounts. */
export function worstHostPaths(sources: string[]): 'none' | 'deployment_files' | 'host_system' | null {
  const classes = sources.map(hostPathClass);
  if (classes.includes('host_system')) return 'host_system';
  if (classes.includes('unknown')) return null;
  return classes.length ? 'deployment_files' : 'none';
}
