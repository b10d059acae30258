/**
 * The dependency direction of the code base (docs/architecture.md "Layout"):
 * transports (src/) import services and infrastructure; services
 * (services/) import other services and shared infrastructure (the
 * settings, storage and the rate-limit store) only; infrastructure (layers/, but the composition root)
 * imports neither; only the composition root (src/app/gateway.ts) and the
 * CLI's serve command import the whole graph; the client SDK and the API
 * declarations load no server code (schemas and pure helpers only); and no
 * two folders import each other, directly or through others (no folder
 * cycles).
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..")

const sources = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : []
  })

/** Every relative import of a file (static `import`/`export … from`, and dynamic `import()`), as repository paths. */
const importsOf = (file: string): Array<string> => {
  const text = readFileSync(join(ROOT, file), "utf8")
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1])
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)))
}

const all = [...sources("src"), ...sources("services"), ...sources("layers")]

const violations = (files: ReadonlyArray<string>, allowed: (target: string) => boolean): Array<string> =>
  files.flatMap((file) => importsOf(file).filter((target) => !allowed(target)).map((target) => `${file} → ${target}`))

/** Modules the client SDK and the declarations may load: schemas (error classes are schemas too) and pure helpers. */
const isSchemaOnly = (target: string): boolean =>
  // A subsystem's schema files, also one folder down (services/workflow/runs/schema.ts).
  /^services\/[^/]+(\/[^/]+)?\/(schema|events|errors|GatewayEvent|deviceIdentity|proofTranscript)\.ts$/.test(target) ||
  /^services\/shared\/(decode|json|errors|schemas|privateFile|principal)\.ts$/.test(target)

/**
 * A subsystem's settings declarations (`services/<x>/settings.ts`: data and pure decoders, importing only
 * layers/settings.ts), which the settings root (layers/config.ts) lists.
 */
const isSettingsDeclaration = (target: string): boolean => /^services\/[^/]+\/settings\.ts$/.test(target)

/**
 * A subsystem's edge (docs/architecture.md "Subsystems"): its descriptor (`services/<x>/index.ts`), its contract
 * (`contract.ts`) and its transports (`transport/`: HTTP and WS declarations and handlers). The edge may use the
 * shared transport machinery (src/http, src/ws, src/subsystem); the rest of the folder, its domain, may not.
 */
const isEdge = (file: string): boolean => /^services\/[^/]+\/(index\.ts|contract\.ts|transport\/)/.test(file)

/** Schema-only parts of an edge: the contract and the transport declarations (the clients load these). */
const isDeclaration = (file: string): boolean =>
  /^services\/[^/]+\/(contract\.ts|transport\/(httpApi|wsApi)\.ts)$/.test(file) || file === "src/subsystem/contract.ts" ||
  file === "src/app/contracts.ts" || /^src\/app\/routes\/(contract|\w+Api)\.ts$/.test(file)

/** Pure helpers (no Effect service, no server code) that infrastructure may use too: writing a private file atomically, SHA-256. */
const isPureHelper = (target: string): boolean =>
  target === "services/shared/privateFile.ts" || target === "services/shared/sha256.ts"

describe("dependency direction", () => {
  it("services import only services and shared infrastructure (settings, storage, rate-limit store, secret providers)", () => {
    const files = all.filter((f) => f.startsWith("services/") && !isEdge(f))
    expect(files.length).toBeGreaterThan(10)
    const sharedInfrastructure = (t: string) =>
      t === "layers/config.ts" || t === "layers/settings.ts" || t.startsWith("layers/storage/") || t.startsWith("layers/ratelimit/") ||
      t.startsWith("layers/secrets/")
    expect(violations(files, (t) => (t.startsWith("services/") && !isEdge(t)) || sharedInfrastructure(t))).toEqual([])
  })

  it("a subsystem's edge uses its domain, other subsystems, shared infrastructure and the transport machinery", () => {
    const files = all.filter(isEdge)
    expect(files.length).toBeGreaterThan(40)
    const allowed = (t: string) =>
      t.startsWith("services/") || t.startsWith("layers/") || t.startsWith("src/http/") || t.startsWith("src/ws/") ||
      t.startsWith("src/subsystem/")
    expect(violations(files, allowed)).toEqual([])
  })

  it("infrastructure (layers/, not the composition root) imports neither services nor transports", () => {
    const files = all.filter((f) => f.startsWith("layers/") && f !== "src/app/gateway.ts")
    expect(violations(files, (t) => t.startsWith("layers/") || isPureHelper(t) || isSettingsDeclaration(t))).toEqual([])
    // The declarations themselves load nothing but the declaration helper (and effect).
    const declarations = all.filter(isSettingsDeclaration)
    expect(declarations.length).toBeGreaterThan(5)
    expect(violations(declarations, (t) => t === "layers/settings.ts")).toEqual([])
  })

  it("only the composition root and the serve command import the whole graph", () => {
    const importers = all.filter((f) => importsOf(f).includes("src/app/gateway.ts"))
    expect(importers).toEqual(["src/serve.ts"])
  })

  it("transports do not import each other's handlers (HTTP ↔ WS), except shared credential helpers", () => {
    const http = all.filter((f) => f.startsWith("src/http/"))
    const ws = all.filter((f) => f.startsWith("src/ws/"))
    expect(violations(http, (t) => !t.startsWith("src/ws/"))).toEqual([])
    expect(violations(ws, (t) => !t.startsWith("src/http/") || t === "src/http/credentials.ts" || t === "src/http/origin.ts" || t === "src/http/path.ts"))
      .toEqual([])
  })

  it("the client SDK and the API declarations load schemas only, never server code", () => {
    const files = all.filter((f) =>
      f.startsWith("src/client/") || f.startsWith("src/http/api/") || f.startsWith("src/ws/api/") || isDeclaration(f)
    )
    expect(files.length).toBeGreaterThan(10)
    const allowed = (t: string) =>
      t.startsWith("src/client/") || t.startsWith("src/http/api/") || t.startsWith("src/ws/api/") || isSchemaOnly(t) ||
      isDeclaration(t)
    expect(violations(files, allowed)).toEqual([])
  })
})

/**
 * The folder a file belongs to in the folder graph: `services/<x>`, `src/<x>`,
 * `layers/<x>` (everything below counts as that folder); a file directly under
 * `src/` or `layers/` (`layers/config.ts`, `src/app/gateway.ts`, `src/main.ts`)
 * is a node of its own.
 */
const folderOf = (file: string): string => {
  // A subsystem's settings declarations are leaves (they import only layers/settings.ts, checked above) that the
  // settings root (layers/config.ts) lists: a node of their own, not part of the subsystem the settings read.
  if (isSettingsDeclaration(file)) return "services/*/settings.ts"
  // A subsystem's edge is a layer above its domain: services/<x>/edge → src/http → services/<x> is no cycle.
  if (isEdge(file)) return `${file.split("/").slice(0, 2).join("/")}/edge`
  const parts = file.split("/")
  return parts.length <= 2 ? file : `${parts[0]}/${parts[1]}`
}

/** The folder graph: an edge `a → b` for every import from a file of folder `a` of a file of folder `b` (a ≠ b). */
const folderGraph = (files: ReadonlyArray<string>): Map<string, Set<string>> => {
  const graph = new Map<string, Set<string>>()
  for (const file of files) {
    for (const target of importsOf(file)) {
      const from = folderOf(file)
      const to = folderOf(target)
      if (from === to) continue
      const edges = graph.get(from) ?? new Set<string>()
      edges.add(to)
      graph.set(from, edges)
    }
  }
  return graph
}

/** The strongly connected components of more than one folder (Tarjan), each sorted, as `a ⇄ b ⇄ c`. */
const folderCycles = (graph: ReadonlyMap<string, ReadonlySet<string>>): Array<string> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const cycles: Array<string> = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) cycles.push(component.sort().join(" ⇄ "))
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return cycles.sort()
}

describe("no folder cycles", () => {
  it("finds a cycle when there is one (the check itself)", () => {
    const graph = new Map([["a", new Set(["b"])], ["b", new Set(["c"])], ["c", new Set(["a"])], ["d", new Set(["a"])]])
    expect(folderCycles(graph)).toEqual(["a ⇄ b ⇄ c"])
    expect(folderOf("services/workflow/runs/RunsRepo.ts")).toBe("services/workflow")
    expect(folderOf("layers/config.ts")).toBe("layers/config.ts")
  })

  it("no folder of services/, src/ or layers/ imports, directly or through others, a folder that imports it", () => {
    const graph = folderGraph(all)
    expect(graph.size).toBeGreaterThan(20)
    expect(folderCycles(graph)).toEqual([])
  })
})

describe("storage conventions (docs/architecture.md \"Errors\", \"Storage\")", () => {
  const services = all.filter((f) => f.startsWith("services/"))
  const text = (file: string) => readFileSync(join(ROOT, file), "utf8")
  /** Repositories (`*Repo.ts`, their edge being layers/storage/repositoryEdge.ts) and the snapshot import's table SQL (it maps rejected rows to 400). */
  const isStorageEdge = (file: string) => /Repo\.ts$/.test(file) || file.startsWith("services/snapshots/")

  it("SqlError stays at the repository edge: no service outside a repository names it", () => {
    expect(services.filter((f) => !isStorageEdge(f) && /\bSqlError\b/.test(text(f)))).toEqual([])
  })

  it("every repository goes through the edge (repositoryEdge), so none of its operations fails with SqlError", () => {
    const repos = services.filter((f) => /Repo\.ts$/.test(f))
    expect(repos.length).toBeGreaterThan(10)
    expect(repos.filter((f) => !text(f).includes("repositoryEdge("))).toEqual([])
  })

  it("rows are decoded with SqlSchema, never typed by a cast (sql<Row>`…`)", () => {
    expect(services.filter((f) => !f.startsWith("services/snapshots/") && /\bsql<[^>]/.test(text(f)))).toEqual([])
  })
})

/**
 * The object literal given to `<Service>.of(` (docs/architecture.md "Conventions"), from its `{` to the matching `}`,
 * or `undefined` for a repository's (`Repo.of(repositoryEdge("Repo", {...}))`: the edge traces every operation).
 */
const serviceObjects = (text: string): Array<string> =>
  [...text.matchAll(/\b[A-Z]\w*\.of\(\s*\{/g)].map((match) => {
    const start = match.index + match[0].length - 1
    let depth = 0
    for (let i = start; i < text.length; i++) {
      if (text[i] === "{") depth++
      else if (text[i] === "}" && --depth === 0) return text.slice(start, i + 1)
    }
    return text.slice(start)
  })

/** A method written as an arrow over `Effect.gen` (untraced) instead of `Effect.fn("Service.method")`. */
const ARROW_OVER_GEN = /^\s*(\w+):\s*(?:<[^>]*>)?(?:\([^)]*\)|\w+)\s*(?::[^=\n]+)?=>\s*Effect\.gen\(/gm
/** Names of the file's constants written as an arrow over `Effect.gen`. */
const arrowOverGenConstants = (text: string): Set<string> =>
  new Set([...text.matchAll(/const (\w+)\s*=\s*(?:<[^>]*>)?(?:\([^)]*\)|\w+)\s*(?::[^=\n]+)?=>\s*Effect\.gen\(/g)].map((m) => m[1]))

/** The methods of `<Service>.of({...})` objects in `text` that are arrows over `Effect.gen` (inline or by a constant). */
const untracedMethods = (text: string): Array<string> => {
  const constants = arrowOverGenConstants(text)
  return serviceObjects(text).flatMap((object) => [
    ...[...object.matchAll(ARROW_OVER_GEN)].map((m) => m[1]),
    ...[...object.matchAll(/^\s*(\w+)(?::\s*(\w+))?,?\s*$/gm)].filter((m) => constants.has(m[2] ?? m[1])).map((m) => m[1])
  ])
}

describe("Effect.fn on every service method (docs/architecture.md \"Conventions\")", () => {
  it("finds an arrow over Effect.gen, inline or by a constant (the check itself)", () => {
    const text = `
      const run = (request: Req) =>
        Effect.gen(function*() { return 1 })
      const get = Effect.fn("S.get")(function*(id: string) { return id })
      return S.of({
        run,
        get,
        list: (filter) => Effect.gen(function*() { return [] }),
        count: Effect.fn("S.count")(() => Effect.succeed(0))
      })`
    expect(untracedMethods(text)).toEqual(["list", "run"])
  })

  it("no method of a Context.Service implementation (services/, layers/, src/ws/) is an arrow over Effect.gen", () => {
    const files = all.filter((f) =>
      (f.startsWith("services/") || f.startsWith("layers/") || f.startsWith("src/ws/")) &&
      /\.of\(/.test(readFileSync(join(ROOT, f), "utf8"))
    )
    expect(files.length).toBeGreaterThan(30)
    const offenders = files.flatMap((f) => untracedMethods(readFileSync(join(ROOT, f), "utf8")).map((m) => `${f}: ${m}`))
    expect(offenders).toEqual([])
  })

  it("every repository names itself at the edge, which traces its operations as <Repo>.<operation>", () => {
    const repos = all.filter((f) => f.startsWith("services/") && /Repo\.ts$/.test(f))
    const unnamed = repos.filter((f) => {
      const name = f.split("/").pop()!.replace(/\.ts$/, "")
      return !readFileSync(join(ROOT, f), "utf8").includes(`repositoryEdge("${name}", `)
    })
    expect(unnamed).toEqual([])
  })
})

describe("layer naming (docs/architecture.md \"Conventions\")", () => {
  /**
   * Module constants named `…Live` that may exist: the composition root's names (layers/gateway.ts, re-exported by
   * the package), infrastructure, composites of several services of one subsystem, implementations of a service
   * declared elsewhere (a port of another folder, or Effect's), and deprecated aliases of a `static layer`. Any other
   * service layer is `static readonly layer` / `layerNoDeps` on its class.
   */
  const ALLOWED = new Set([
    // composition root (layers/gateway.ts)
    "GatewayConfigLive", "SecretsLive", "AuthProfilesLive", "WatchersLive", "ObservabilityLive", "GatewayServicesLive",
    "WsDispatchLive", "LoggingLive", "GatewayHttpLive", "GatewayLive",
    // infrastructure and transports
    "StorageLive", "NodeServerDrainLive", "WsServerLive",
    // composites of one subsystem
    "NodesLive", "WsSessionsLive", "WorkflowLive", "PlanExecutionLive", "MessengerLive",
    // implementations of a service declared elsewhere (RunHooks, StepExecutor, Effect's WorkflowEngine, SecretReferences)
    "RunRecorderLive", "StepExecutorLive", "WorkflowEngineLive", "AuthProfileReferencesLive",
    // the HttpApiMiddleware implementations of src/http/api/security.ts (Authentication, RequestErrors)
    "AuthenticationLive", "RequestErrorsLive",
    // a subsystem's composite layer, on its descriptor (services/provider-oauth/index.ts)
    "ProviderOAuthLive",
    // deprecated aliases of a static layer
    "PlaybooksLive", "WorkflowRunsLive",
    // contributors registered with AgentContributions (services/agent/contributions.ts): a layer that only registers
    "NodeToolsLive", "PluginMcpServersLive",
    // the cluster's implementation of BackgroundJobs, a Context.Reference (services/cluster/clusterJobs.ts)
    "ClusterJobsLive"
  ])

  it("no module constant named …Live outside the allow-list (a service's layer is static on its class)", () => {
    const names = all.flatMap((f) =>
      [...readFileSync(join(ROOT, f), "utf8").matchAll(/^export const (\w+Live)\b/gm)].map((m) => `${f}: ${m[1]}`)
    )
    expect(names.length).toBeGreaterThan(10)
    expect(names.filter((n) => !ALLOWED.has(n.split(": ")[1]))).toEqual([])
  })
})
