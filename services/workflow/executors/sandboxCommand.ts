/**
 * The command lines that run a `CLI` step inside a sandbox (issue 20 §2;
 * docs/workflow-executors.md "Sandbox"). Pure: `CliSandbox.ts` finds the
 * programs, probes them and calls these.
 *
 * Both sandboxes give the step
 * - its own PID namespace with a fresh `/proc` (the gateway's process, its
 *   `environ` included, is not there) and its own IPC namespace;
 * - its own mount namespace in which every hidden directory (`$SVC_HOME`,
 *   the gateway user's home) is covered by an empty read-only tmpfs and every
 *   hidden file (a master key outside `$SVC_HOME`) by `/dev/null`;
 * - no capabilities and `no_new_privs`; a gateway running as root runs the
 *   step as `nobody` (uid and gid 65534) through util-linux's `setpriv`.
 *
 * `unshare` (util-linux) does the namespaces; a short `sh` script inside
 * them mounts over the hidden paths, then execs the step (through `setpriv`).
 * Without root it adds a user namespace (`--user --map-root-user`) and drops
 * the capabilities that namespace gives before the step runs, so the step
 * cannot unmount what hides the paths. `bwrap` (bubblewrap) does the
 * namespaces and mounts itself and drops every capability when not root.
 *
 * @module
 */

/** The sandbox programs known, in the order they are tried. */
export const SANDBOX_KINDS = ["bwrap", "unshare"] as const
/** A sandbox program. */
export type SandboxKind = (typeof SANDBOX_KINDS)[number]

/**
 * Where CLI steps run, chosen at start (`CliSandbox.ts`): in a sandbox
 * ({@link SandboxKind}), `unsandboxed` (none works, `SVC_CLI_UNSANDBOXED=1`),
 * `unavailable` (none works: steps fail), `disabled` (`SVC_CLI_ENABLED` is
 * not `1`). `GET /status` `features.cli_sandbox`.
 */
export type CliSandboxKind = SandboxKind | "unsandboxed" | "unavailable" | "disabled"

/** Every {@link CliSandboxKind}, for the `/status` schema. */
export const CLI_SANDBOX_KINDS: ReadonlyArray<CliSandboxKind> = [...SANDBOX_KINDS, "unsandboxed", "unavailable", "disabled"]

/** The user a root gateway runs steps as: `nobody`/`nogroup` of Debian. */
export const NOBODY = { uid: 65534, gid: 65534 } as const

/** The absolute paths of the programs a sandbox needs. */
export interface SandboxPrograms {
  readonly kind: SandboxKind
  /** `bwrap` or `unshare`. */
  readonly program: string
  /** util-linux `setpriv`: drops privileges (needed by `unshare`, and by `bwrap` as root). */
  readonly setpriv: string
  /** util-linux `mount` (needed by `unshare`). */
  readonly mount: string
  /** A POSIX shell (needed by `unshare`). */
  readonly sh: string
}

/** A path to hide and whether it is a directory (covered by a tmpfs) or a file (covered by `/dev/null`). */
export interface HiddenPath {
  readonly path: string
  readonly directory: boolean
}

/** What one attempt's command line depends on. */
export interface SandboxInvocation {
  /** The gateway runs as root (then the step runs as {@link NOBODY}). */
  readonly root: boolean
  readonly hidden: ReadonlyArray<HiddenPath>
  /** The attempt's working directory (outside every hidden path). */
  readonly workDir: string
}

/** Exit status of the `unshare` script when it cannot hide a path (the step did not run). */
export const SETUP_FAILED_STATUS = 125

/**
 * Runs inside the new namespaces: `$1` is `mount`, then pairs `d <dir>` /
 * `f <file>`, then `--` and the command. Paths are arguments, never parts of
 * the script.
 */
const UNSHARE_SCRIPT = [
  "mount=$1; shift",
  "while [ \"$1\" != -- ]; do",
  "  case $1 in",
  "    d) \"$mount\" -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=0755 svc-hidden \"$2\" ;;",
  "    f) \"$mount\" --bind /dev/null \"$2\" ;;",
  "  esac || { echo \"svc-gateway sandbox: cannot hide $2\" >&2; exit " + SETUP_FAILED_STATUS + "; }",
  "  shift 2",
  "done",
  "shift",
  "exec \"$@\""
].join("\n")

/** `setpriv` in front of the step: as root, become nobody; in a user namespace, drop its capabilities. */
const dropPrivileges = (programs: SandboxPrograms, root: boolean): ReadonlyArray<string> =>
  root
    ? [programs.setpriv, `--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
    : [programs.setpriv, "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]

/**
 * The argv that runs `argv` (its program an absolute path) in the sandbox
 * `programs` describes; spawn it with the working directory `workDir`.
 */
export const sandboxArgv = (
  programs: SandboxPrograms,
  invocation: SandboxInvocation,
  argv: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const { hidden, root, workDir } = invocation
  if (programs.kind === "bwrap") {
    const mounts = hidden.flatMap((h) =>
      h.directory ? ["--tmpfs", h.path, "--remount-ro", h.path] : ["--ro-bind", "/dev/null", h.path]
    )
    return [
      programs.program,
      "--die-with-parent",
      "--unshare-pid",
      "--unshare-ipc",
      "--bind", "/", "/",
      "--proc", "/proc",
      ...mounts,
      "--chdir", workDir,
      "--",
      // Not root: bwrap itself leaves no capability and sets no_new_privs.
      ...(root ? dropPrivileges(programs, true) : []),
      ...argv
    ]
  }
  return [
    programs.program,
    ...(root ? [] : ["--user", "--map-root-user"]),
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--ipc",
    "--",
    programs.sh,
    "-c",
    UNSHARE_SCRIPT,
    "svc-sandbox",
    programs.mount,
    ...hidden.flatMap((h) => [h.directory ? "d" : "f", h.path]),
    "--",
    ...dropPrivileges(programs, root),
    ...argv
  ]
}

const within = (parent: string, child: string): boolean =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`)

/** `paths` without duplicates and without those inside another one (covering the outer one hides them). */
export const outermost = (paths: ReadonlyArray<string>): ReadonlyArray<string> => {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length)
  const kept: Array<string> = []
  for (const p of sorted) if (!kept.some((outer) => within(outer, p))) kept.push(p)
  return kept
}

/** The first of `hidden` that `path` is inside of (or equal to), if any. */
export const hiddenParentOf = (path: string, hidden: ReadonlyArray<string>): string | undefined =>
  hidden.find((h) => within(h, path))
