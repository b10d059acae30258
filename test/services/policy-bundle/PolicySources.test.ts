/**
 * Loading the bundle sources (reference §1.3): YAML and JSON files, the
 * agent bundle's lookup order, and the start-up rule (docs/policy-bundle.md):
 * a deployment bundle that is set but unreadable or invalid fails with a
 * message naming the path and the problem; an invalid agent bundle is
 * logged and ignored.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, Option, Redacted } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfig } from "../../../layers/config.ts"
import { DEFAULTS, validateSettings } from "../../../src/app/settings.ts"
import { DEFAULT_POLICY_BUNDLE } from "../../../services/policy-bundle/bundle.ts"
import { parseBundleText } from "../../../services/policy-bundle/loader.ts"
import { PolicySources } from "../../../services/policy-bundle/PolicySources.ts"

const dir = () => mkdtempSync(join(tmpdir(), "svc-policy-"))
const write = (directory: string, name: string, text: string) => {
  const path = join(directory, name)
  writeFileSync(path, text)
  return path
}

const load = (deploymentPath: string | undefined, home: string) =>
  PolicySources.load({ deploymentPath, home }).pipe(Effect.provide(NodeServices.layer))

const DEPLOYMENT_YAML = `
v: 1
tools:
  default: require_approval
  allow: [tool.fs.read, tool.http.get]
  deny:
    - tool.rm*
network_egress:
  allow: ["https://api.example.com/*"]
`

describe("PolicySources.load", () => {
  it.effect("uses the built-in bundle when no path is set and no agent bundle exists", () =>
    Effect.gen(function*() {
      const sources = yield* load(undefined, dir())
      expect(sources.deployment).toEqual({ source: "default", bundle: DEFAULT_POLICY_BUNDLE })
      expect(sources.agent).toBeUndefined()
    }))

  it.effect("reads a YAML deployment bundle and a JSON agent bundle", () =>
    Effect.gen(function*() {
      const home = dir()
      const deployment = write(dir(), "bundle.yaml", DEPLOYMENT_YAML)
      const agent = write(home, "policy.json", JSON.stringify({ v: 1, secrets: { deny: ["scope.root"] } }))
      const sources = yield* load(deployment, home)
      expect(sources.deployment.source).toBe(deployment)
      expect(sources.deployment.bundle.tools).toEqual({ default: "require_approval", allow: ["tool.fs.read", "tool.http.get"], require_approval: [], deny: ["tool.rm*"] })
      expect(sources.deployment.bundle.network_egress?.default).toBe("deny")
      expect(sources.agent).toEqual({ source: agent, bundle: { v: 1, secrets: { default: "deny", allow: [], require_approval: [], deny: ["scope.root"] } } })
    }))

  it.effect("prefers policy.yml, then policy.yaml, then policy.json", () =>
    Effect.gen(function*() {
      const home = dir()
      write(home, "policy.json", "{\"v\": 1}")
      const yaml = write(home, "policy.yaml", "v: 1\n")
      expect((yield* load(undefined, home)).agent?.source).toBe(yaml)
      const yml = write(home, "policy.yml", "v: 1\n")
      expect((yield* load(undefined, home)).agent?.source).toBe(yml)
    }))

  it.each([
    ["a missing file", () => join(dir(), "nope.yaml"), /cannot read the file/],
    ["a directory", () => {
      const d = join(dir(), "bundle.yaml")
      mkdirSync(d)
      return d
    }, /not a regular file/],
    ["malformed YAML", () => write(dir(), "b.yaml", "v: [1\n"), /invalid YAML/],
    ["a duplicate YAML key", () => write(dir(), "b.yml", "v: 1\nv: 1\n"), /invalid YAML/],
    ["malformed JSON", () => write(dir(), "b.json", "{\"v\": 1,}"), /invalid JSON/],
    ["an unknown key", () => write(dir(), "b.yaml", "v: 1\ntools:\n  alow: [x]\n"), /invalid policy bundle: tools\.alow: unexpected field/],
    ["a wrong version", () => write(dir(), "b.json", "{\"v\": 2}"), /invalid policy bundle: v: expected 1, got 2/],
    ["an empty file", () => write(dir(), "b.yaml", ""), /invalid policy bundle: bundle: expected a policy bundle object/]
  ])("fails on %s with a PolicyBundleLoadError naming the path and the problem", async (_name, make, problem) => {
    const path = make()
    const exit = await Effect.runPromiseExit(load(path, dir()))
    expect(Exit.isFailure(exit)).toBe(true)
    if (!Exit.isFailure(exit)) return
    const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error as { _tag: string; message: string; path: string }
    expect(error._tag).toBe("PolicyBundleLoadError")
    expect(error.path).toBe(path)
    expect(error.message).toContain(`deployment policy bundle ${path}: `)
    expect(error.message).toMatch(problem)
  })

  it("logs and ignores an invalid agent bundle", async () => {
    const home = dir()
    const path = write(home, "policy.yml", "v: 1\nsecrets: {default: sometimes}\n")
    const logs: Array<unknown> = []
    const sources = await Effect.runPromise(load(undefined, home).pipe(
      Effect.provide(Logger.layer([Logger.map(Logger.formatStructured, (entry) => void logs.push(entry))]))
    ))
    expect(sources.agent).toBeUndefined()
    expect(JSON.stringify(logs)).toContain("agent policy bundle ignored")
    expect(JSON.stringify(logs)).toContain(path)
  })
})

describe("PolicySources.layer", () => {
  const settings = (policyBundlePath: string | undefined) => {
    const result = validateSettings({
      ...DEFAULTS,
      home: Option.some(dir()),
      databaseUrl: Option.none(),
      adminToken: Option.some(Redacted.make("x".repeat(40))),
      auth: "on",
      logLevel: "Error",
      policyBundlePath: Option.fromUndefinedOr(policyBundlePath)
    })
    if (!result.ok) throw new Error(result.problems.join("; "))
    return result.settings
  }

  it.effect("reads SVC_POLICY_BUNDLE_PATH from the settings (blank means unset)", () =>
    Effect.gen(function*() {
      const path = write(dir(), "b.json", "{\"v\": 1}")
      expect(settings(`  ${path} `).policyBundlePath).toBe(path)
      expect(settings("  ").policyBundlePath).toBeUndefined()
      const sources = yield* Effect.service(PolicySources).pipe(
        Effect.provide(PolicySources.layer.pipe(Layer.provide(Layer.succeed(GatewayConfig, settings(path)))))
      )
      expect(sources.deployment.source).toBe(path)
    }))

  it("fails to build on an invalid deployment bundle", async () => {
    const path = write(dir(), "b.yaml", "v: one\n")
    const exit = await Effect.runPromiseExit(
      Effect.service(PolicySources).pipe(Effect.provide(PolicySources.layer.pipe(Layer.provide(Layer.succeed(GatewayConfig, settings(path))))))
    )
    expect(Exit.isFailure(exit) && String(exit.cause.reasons.map((r) => (r._tag === "Fail" ? r.error.message : "")))).toContain(`${path}: invalid policy bundle: v: expected 1`)
  })
})

describe("parseBundleText", () => {
  it("parses JSON by extension and YAML otherwise (JSON is valid YAML too)", () => {
    expect(parseBundleText("{\"v\": 1}", "/x/B.JSON")).toEqual(parseBundleText("v: 1", "/x/b.yml"))
    expect(parseBundleText("{\"v\": 1}", "/x/bundle")._tag).toBe("Success")
  })

  it("refuses alias bombs", () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for (let i = 1; i < 12; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]`)
    expect(parseBundleText(lines.join("\n"), "bomb.yaml")._tag).toBe("Failure")
  })
})
