/**
 * The playbooks service over a real directory (issue 13 §1): the initial
 * load (valid files, invalid files with lines, a duplicate id), warnings
 * logged once per change, get/compile/dry run/NotFound, execute's defaults
 * and options passed to `Workflow.run`, reload when files are added,
 * changed and removed (through the file watcher, and through the polling
 * fallback when watching is unavailable), and the directory created 0700.
 * Workflow and policy are fakes here; test/http/playbooks.test.ts runs the
 * real ones.
 */
import { NodeServices } from "@effect/platform-node"
import { Effect, Exit, FileSystem, Layer, Logger, ManagedRuntime, Option, Stream } from "effect"
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { GatewayConfig } from "../../../layers/config.ts"
import { Playbooks } from "../../../services/playbooks/Playbooks.ts"
import type { PlaybookExecuteRequest } from "../../../services/playbooks/schema.ts"
import { PolicyBundle } from "../../../services/policy-bundle/PolicyBundle.ts"
import type { ToolCallInput } from "../../../services/policy-bundle/evaluate.ts"
import type { RunOptions } from "../../../services/workflow/Workflow.ts"
import { Workflow } from "../../../services/workflow/Workflow.ts"
import type { WorkflowRunRequest } from "../../../services/workflow/runs/schema.ts"
import { eventually } from "../../support/eventually.ts"
import { testSettings } from "../../support/gateway.ts"

const playbook = (id: string, version = "1", steps = "  - id: fetch\n    command: http https://ok.example/\n") =>
  `id: ${id}\nname: Playbook ${id}\nversion: "${version}"\nsteps:\n${steps}`

/** Writes `<home>/playbooks/<dir>/playbook.yml`. */
const write = (home: string, dir: string, text: string) => {
  mkdirSync(join(home, "playbooks", dir), { recursive: true })
  writeFileSync(join(home, "playbooks", dir, "playbook.yml"), text)
}

interface Started {
  readonly runtime: ManagedRuntime.ManagedRuntime<Playbooks, never>
  readonly run: <A, E>(effect: Effect.Effect<A, E, Playbooks>) => Promise<A>
  readonly runs: Array<{ request: WorkflowRunRequest; options: RunOptions | undefined }>
  readonly warnings: () => Array<string>
}

const started: Array<Started> = []
afterEach(async () => {
  for (const s of started.splice(0)) await s.runtime.dispose()
})

/** The service over `home`, with a fake workflow and policy; `watch: false` makes watching unavailable. */
const start = async (home: string, options: { readonly watch?: boolean } = {}): Promise<Started> => {
  const runs: Started["runs"] = []
  const logs: Array<{ level: string; message: unknown }> = []
  const workflow = Layer.succeed(Workflow, Workflow.of({
    run: (request, _principal, options) =>
      Effect.sync(() => {
        runs.push({ request, options })
        return {
          status: "ok" as const,
          job_id: `job-${runs.length}`,
          run_id: `run-${runs.length}`,
          plan_id: request.plan_id ?? "plan-generated",
          request_id: request.request_id ?? "req-generated",
          key: request.key,
          lane: request.lane,
          steps_count: request.steps.length
        }
      }),
    resume: () => Effect.die("unused"),
    cancel: () => Effect.die("unused"),
    get: () => Effect.die("unused"),
    list: () => Effect.die("unused")
  }))
  // Hosts under deny.example are denied, ask.example asks, the rest is allowed.
  const policy = Layer.succeed(PolicyBundle, PolicyBundle.of({
    evaluateToolCall: (input: ToolCallInput) =>
      Effect.succeed({
        decision: input.url?.includes("deny.example") ? "deny" : input.url?.includes("ask.example") ? "require_approval" : "allow",
        rules: [{ rule: "tool_policy", outcome: "allow", detail: `tool_id=${input.tool_id}` }],
        applied_override_ids: [],
        suggested_overrides: []
      }),
    effective: Effect.die("unused"),
    effectiveWithPlaybook: () => Effect.die("unused"),
    getOrCreateSnapshot: () => Effect.die("unused"),
    getSnapshot: () => Effect.die("unused")
  }))
  const unavailableWatch = Layer.succeed(FileSystem.WatchBackend, { register: () => Option.some(Stream.empty) })
  const layer = Playbooks.layerNoDeps.pipe(
    Layer.provide([workflow, policy, Layer.succeed(GatewayConfig, testSettings({ home }))]),
    Layer.provide(options.watch === false ? unavailableWatch : Layer.empty),
    Layer.provide(NodeServices.layer),
    Layer.provide(Logger.layer([Logger.map(Logger.formatStructured, (entry) => void logs.push(entry))]))
  )
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(Effect.void)
  const s: Started = {
    runtime,
    run: (effect) => runtime.runPromise(effect),
    runs,
    warnings: () => logs.filter((l) => l.level === "WARN").map((l) => String(l.message))
  }
  started.push(s)
  return s
}

const freshHome = () => mkdtempSync(join(tmpdir(), "svc-playbooks-"))
const list = Effect.flatMap(Playbooks, (p) => p.list)

describe("loading", () => {
  it("creates the directory (0700) and starts empty", async () => {
    const home = freshHome()
    const s = await start(home)
    expect(await s.run(list)).toEqual({ playbooks: [], errors: [] })
    expect(statSync(join(home, "playbooks")).mode & 0o777).toBe(0o700)
  })

  it("lists valid playbooks by id and reports invalid files with their lines, warning once per change", async () => {
    const home = freshHome()
    write(home, "b-first", playbook("zeta"))
    write(home, "a-second", playbook("alpha", "2"))
    write(home, "c-broken", "id: broken\nname: B\nversion: 1\nsteps:\n  - id: s\n    command: bash x\n")
    write(home, "d-duplicate", playbook("zeta", "9"))
    mkdirSync(join(home, "playbooks", "e-no-file"))
    writeFileSync(join(home, "playbooks", "stray.yml"), "not: a playbook dir")
    const s = await start(home)
    const listed = await s.run(list)
    expect(listed.playbooks.map((p) => [p.id, p.version, p.step_count, p.description])).toEqual([
      ["alpha", "2", 1, null],
      ["zeta", "1", 1, null]
    ])
    expect(listed.playbooks[0]).toMatchObject({
      name: "Playbook alpha",
      file_path: join(home, "playbooks", "a-second", "playbook.yml"),
      loaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
    })
    expect(listed.errors).toEqual([
      {
        file_path: join(home, "playbooks", "c-broken", "playbook.yml"),
        message: "steps[0].command: unknown command namespace (expected one of cli, http, web, mcp, node, llm)",
        line: 6
      },
      {
        file_path: join(home, "playbooks", "d-duplicate", "playbook.yml"),
        message: `id: a playbook with this id is already loaded from ${join(home, "playbooks", "b-first", "playbook.yml")}`,
        line: 1
      }
    ])
    expect(s.warnings().filter((w) => w.includes("c-broken"))).toHaveLength(1)
    // Nothing changed: no new warning, loaded_at kept.
    await s.run(Effect.flatMap(Playbooks, (p) => p.reload))
    expect(s.warnings().filter((w) => w.includes("c-broken"))).toHaveLength(1)
    expect((await s.run(list)).playbooks[0]!.loaded_at).toBe(listed.playbooks[0]!.loaded_at)
  })
})

describe("symbolic links (issue 20 §5)", () => {
  it("refuses files and directories linking outside the playbook directory, quoting nothing; follows links inside it", async () => {
    const home = freshHome()
    const dir = join(home, "playbooks")
    const outside = mkdtempSync(join(tmpdir(), "svc-playbooks-outside-"))
    const SECRET = "5ec7e7a1b2c3d4e5f60718293a4b5c6d7e8f9012a1b2c3d4e5f60718293a4b5c"
    writeFileSync(join(outside, "secrets.master.key"), `${SECRET}\n`)
    mkdirSync(join(outside, "elsewhere"))
    writeFileSync(join(outside, "elsewhere", "playbook.yml"), playbook("elsewhere"))
    const link = (target: string, ...path: Array<string>) => {
      mkdirSync(join(dir, ...path.slice(0, -1)), { recursive: true })
      symlinkSync(target, join(dir, ...path))
    }
    link(join(outside, "secrets.master.key"), "key", "playbook.yml")
    link("/etc/passwd", "passwd", "playbook.yml")
    link(join(outside, "elsewhere"), "linked-dir")
    link(`../../../${outside.split("/").pop()}/secrets.master.key`, "relative", "playbook.yml")
    // Inside the directory: followed.
    mkdirSync(join(dir, "shared"), { recursive: true })
    writeFileSync(join(dir, "shared", "inner.yml"), playbook("inner"))
    link("../shared/inner.yml", "alias", "playbook.yml")

    const s = await start(home)
    const listed = await s.run(list)
    expect(listed.playbooks.map((p) => p.id)).toEqual(["inner"])
    const refused = "refused: a symbolic link that resolves outside the playbook directory (only links inside it are followed)"
    expect(listed.errors).toEqual([
      { file_path: join(dir, "key", "playbook.yml"), message: refused },
      { file_path: join(dir, "linked-dir", "playbook.yml"), message: refused },
      { file_path: join(dir, "passwd", "playbook.yml"), message: refused },
      { file_path: join(dir, "relative", "playbook.yml"), message: refused }
    ])
    for (const text of [JSON.stringify(listed), ...s.warnings()]) {
      expect(text).not.toContain(SECRET.slice(0, 8))
      expect(text).not.toContain("root:")
    }
  })
})

describe("the service", () => {
  it("gets, compiles and dry-runs a playbook; unknown ids are NotFound", async () => {
    const home = freshHome()
    write(home, "p", playbook("p", "1",
      "  - id: ok\n    command: http https://ok.example/\n" +
        "  - id: ask\n    command: http POST https://ask.example/\n    approval: required\n" +
        "  - id: bad\n    command: http https://deny.example/\n"))
    const s = await start(home)
    const detail = await s.run(Effect.flatMap(Playbooks, (p) => p.get("p")))
    expect(detail).toMatchObject({ id: "p", step_count: 3, manifest: { id: "p", version: "1" } })
    expect(detail.steps.map((st) => st.type)).toEqual(["Http", "Confirm", "Http", "Http"])
    expect(await s.run(Effect.flatMap(Playbooks, (p) => p.compile("p")))).toEqual(detail.steps)
    const dry = await s.run(Effect.flatMap(Playbooks, (p) => p.dryRun("p")))
    expect(dry.playbook_id).toBe("p")
    expect(dry.steps.map((st) => [st.step_id, st.action.type, st.policy.decision])).toEqual([
      ["ok", "Http", "allow"],
      ["ask:approval", "Confirm", "require_approval"],
      ["ask", "Http", "require_approval"],
      ["bad", "Http", "deny"]
    ])
    expect(dry.steps[1]!.policy.rules).toEqual([{ rule: "playbook_approval", outcome: "require_approval", detail: "approval: required" }])
    expect(dry.steps[0]!.policy.rules).toEqual([{ rule: "tool_policy", outcome: "allow", detail: "tool_id=tool.http.fetch" }])
    expect(s.runs).toEqual([])
    const unknown: ReadonlyArray<(p: Playbooks["Service"]) => Effect.Effect<unknown, unknown>> = [
      (p) => p.get("nope"),
      (p) => p.dryRun("nope"),
      (p) => p.compile("nope"),
      (p) => p.execute("nope", {})
    ]
    for (const call of unknown) {
      const exit = await s.runtime.runPromiseExit(Effect.flatMap(Playbooks, call))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("playbook nope not found")
    }
  })

  it("executes through Workflow.run: default key, lane, trigger kind and metadata; or the caller's", async () => {
    const home = freshHome()
    write(home, "p", playbook("nightly", "7"))
    const s = await start(home)
    const first = await s.run(Effect.flatMap(Playbooks, (p) => p.execute("nightly", {})))
    expect(first).toEqual({
      status: "ok",
      job_id: "job-1",
      run_id: "run-1",
      playbook_id: "nightly",
      plan_id: "plan-generated",
      request_id: "req-generated",
      key: "cron:playbook-nightly",
      lane: "main",
      steps_count: 1
    })
    expect(s.runs[0]!.request).toMatchObject({ key: "cron:playbook-nightly", lane: "main" })
    expect(s.runs[0]!.request.steps[0]).toMatchObject({ type: "Http", idempotency_key: "playbook:nightly:fetch" })
    expect(s.runs[0]!.options).toEqual({ trigger_kind: "manual", trigger: { playbook_id: "nightly", playbook_version: "7" } })
    const request: PlaybookExecuteRequest = {
      key: "cron:watcher-3",
      lane: "cron",
      plan_id: "plan-9",
      request_id: "req-9",
      budgets: { max_duration_ms: 1000 }
    }
    await s.run(Effect.flatMap(Playbooks, (p) => p.execute("nightly", request, { trigger_kind: "cron", trigger: { watcher_id: 3 } })))
    expect(s.runs[1]!.request).toMatchObject(request)
    expect(s.runs[1]!.options).toEqual({
      trigger_kind: "cron",
      trigger: { watcher_id: 3, playbook_id: "nightly", playbook_version: "7" }
    })
  })
})

describe("reload", () => {
  const scenario = async (s: Started, home: string) => {
    const ids = async () => (await s.run(list)).playbooks.map((p) => `${p.id}@${p.version}`)
    write(home, "added", playbook("added"))
    await eventually(async () => (await ids()).includes("added@1"), "the added playbook")
    const loadedAt = (await s.run(list)).playbooks.find((p) => p.id === "added")!.loaded_at
    write(home, "added", playbook("added", "2"))
    await eventually(async () => (await ids()).includes("added@2"), "the changed playbook")
    expect((await s.run(list)).playbooks.find((p) => p.id === "added")!.loaded_at >= loadedAt).toBe(true)
    write(home, "broken", "id: broken\nname: [\n")
    await eventually(async () => (await s.run(list)).errors.some((e) => e.file_path.includes("broken")), "the broken file reported")
    rmSync(join(home, "playbooks", "added"), { recursive: true })
    await eventually(async () => !(await ids()).includes("added@2"), "the removed playbook gone")
    expect(s.warnings().filter((w) => w.includes("broken"))).toHaveLength(1)
  }

  it("follows added, changed, broken and removed files through the file watcher", async () => {
    const home = freshHome()
    const s = await start(home)
    await scenario(s, home)
    expect(s.warnings().some((w) => w.includes("polling"))).toBe(false)
  })

  it("falls back to polling (with a warning) when watching is unavailable", async () => {
    const home = freshHome()
    const s = await start(home, { watch: false })
    await eventually(() => s.warnings().some((w) => w.includes("polling")), "the fallback warning")
    await scenario(s, home)
  })
})
