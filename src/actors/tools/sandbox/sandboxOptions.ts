/**
 * How `bash` confines its commands (Linux, with bubblewrap), and what it does where it cannot.
 * Commands may write only inside the workspace, a private `/tmp` and the `allowWrite` paths; they
 * read the rest of the machine except the `denyRead` paths; they have no network unless
 * `allowNetwork` names where they may connect. Paths are absolute or start with `~/` (the home
 * directory of this process).
 *
 * @example
 * const options: SandboxOptions = {
 *   allowNetwork: ['registry.npmjs.org:443'],
 *   allowWrite: ['~/.npm'],
 *   denyRead: ['/srv/other-tenants'],
 *   allowRead: ['~/.config/git'],
 * };
 * createBashTool({ sandbox: options });
 */
export interface SandboxOptions {
  /**
   * Where commands may connect, as `host:port` (`[::1]:8080` for IPv6; `*.example.com:443` for any
   * subdomain). Connections go through a proxy the sandbox provides (`HTTP_PROXY`, `HTTPS_PROXY`
   * and `ALL_PROXY` point at it), so only clients that honour those variables reach the network.
   * Default: none, and then the command has no network at all (only its own loopback).
   */
  allowNetwork?: string[];
  /** Paths commands may not read, in addition to {@link DEFAULT_SANDBOX_DENY_READ}. */
  denyRead?: string[];
  /** Paths inside denied ones that stay readable, for example `~/.config/git`. */
  allowRead?: string[];
  /** Paths outside the workspace commands may write, for example `~/.npm` for npm's cache. */
  allowWrite?: string[];
  /** The bubblewrap executable. Default: `bwrap`, looked up on the `PATH`. */
  bwrapPath?: string;
  /**
   * Refuse every command when no sandbox can start here (not Linux, no `bwrap`, namespaces
   * forbidden), with a tool error the model reads, instead of running it unconfined. Default
   * false. `sandbox: 'required'` says the same with the other options at their defaults.
   */
  required?: boolean;
}

/**
 * What commands may not read unless `allowRead` says otherwise: other users' homes, the sockets
 * of host services (`/run`, where a Docker socket would hand out root), password hashes and SSH
 * host keys, and the dotfiles of this process's home where credentials and history live. The
 * home directory itself stays readable (toolchains such as nvm or pyenv live there).
 *
 * @example
 * createBashTool({ sandbox: { denyRead: ['/srv/secrets'] } }); // these and /srv/secrets
 */
export const DEFAULT_SANDBOX_DENY_READ: readonly string[] = Object.freeze([
  '/home',
  '/run',
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssh/ssh_host_dsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssh/ssh_host_rsa_key',
  '~/.ssh',
  '~/.gnupg',
  '~/.aws',
  '~/.azure',
  '~/.config',
  '~/.docker',
  '~/.kube',
  '~/.netrc',
  '~/.npmrc',
  '~/.yarnrc',
  '~/.pypirc',
  '~/.pgpass',
  '~/.my.cnf',
  '~/.git-credentials',
  '~/.vault-token',
  '~/.password-store',
  '~/.local/share/keyrings',
  '~/.terraform.d',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.m2/settings.xml',
  '~/.bash_history',
  '~/.zsh_history',
  '~/.python_history',
  '~/.node_repl_history',
  '~/.psql_history',
  '~/.mysql_history',
]);
