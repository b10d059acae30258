/**
 * The sandbox command lines (issue 20 §2; docs/workflow-executors.md
 * "Sandbox"), pure: what `bwrap` and `unshare` are asked to do, as root and
 * not, and which hidden paths are kept. The same lines run for real in
 * CliExecutor.test.ts (with whichever sandbox the machine has).
 */
import { describe, expect, it } from "vitest"
import { hiddenParentOf, outermost, sandboxArgv, type SandboxPrograms } from "../../../../services/workflow/executors/sandboxCommand.ts"

const programs = (kind: SandboxPrograms["kind"]): SandboxPrograms => ({
  kind,
  program: `/usr/bin/${kind === "bwrap" ? "bwrap" : "unshare"}`,
  setpriv: "/usr/bin/setpriv",
  mount: "/usr/bin/mount",
  sh: "/bin/sh"
})
const hidden = [{ path: "/srv/svc", directory: true }, { path: "/keys/master.key", directory: false }]
const workDir = "/tmp/svc-gateway-cli-x/0f0e"
const argv = ["/usr/bin/git", "status", "; rm -rf /"]
const nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]

describe("sandboxArgv", () => {
  it("bwrap: own PID and IPC namespaces, a fresh /proc, hidden paths covered, the work dir; as root, then nobody", () => {
    const line = sandboxArgv(programs("bwrap"), { root: true, hidden, workDir }, argv)
    expect(line).toEqual([
      "/usr/bin/bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--bind", "/", "/", "--proc", "/proc",
      "--tmpfs", "/srv/svc", "--remount-ro", "/srv/svc", "--ro-bind", "/dev/null", "/keys/master.key",
      "--chdir", workDir, "--", ...nobody, ...argv
    ])
    // Not root: bwrap itself drops every capability; no setpriv.
    expect(sandboxArgv(programs("bwrap"), { root: false, hidden, workDir }, argv).slice(-4)).toEqual(["--", ...argv])
  })

  it("unshare: PID namespace with /proc, the hiding script with paths as arguments, then setpriv; a user namespace without root", () => {
    const line = sandboxArgv(programs("unshare"), { root: true, hidden, workDir }, argv)
    expect(line.slice(0, 10)).toEqual(["/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--ipc", "--", "/bin/sh", "-c", line[9]])
    expect(line.slice(10)).toEqual(["svc-sandbox", "/usr/bin/mount", "d", "/srv/svc", "f", "/keys/master.key", "--", ...nobody, ...argv])
    // Paths never become part of the script.
    expect(line[9]).not.toContain("/srv/svc")
    const user = sandboxArgv(programs("unshare"), { root: false, hidden, workDir }, argv)
    expect(user.slice(0, 3)).toEqual(["/usr/bin/unshare", "--user", "--map-root-user"])
    expect(user.slice(-8)).toEqual(["/usr/bin/setpriv", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--", ...argv])
  })
})

describe("hidden paths", () => {
  it("keeps the outermost of nested paths and finds the one a path is inside of", () => {
    expect(outermost(["/root/.svc", "/root", "/root/.svc/secrets.master.key", "/srv/key", "/root"])).toEqual(["/root", "/srv/key"])
    expect(outermost(["/srv/svc-2", "/srv/svc"])).toEqual(["/srv/svc", "/srv/svc-2"])
    expect(hiddenParentOf("/root/tmp", ["/srv", "/root"])).toBe("/root")
    expect(hiddenParentOf("/rootless", ["/root"])).toBeUndefined()
    expect(hiddenParentOf("/tmp", ["/root", "/srv/svc"])).toBeUndefined()
  })
})
