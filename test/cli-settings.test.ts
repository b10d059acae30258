/**
 * Settings on the command line and in the environment (issue 20 §1): any
 * case for the log level and every choice, and an invalid value of any
 * setting is one line on stderr naming the variable or the flag it came
 * from, the value and what is accepted, then exit 1 (no usage dump; the
 * usage is for an unknown flag). The table runs the CLI's own command tree
 * in process over every setting; the rest runs the bundled CLI.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Console, Effect, Exit } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../src/commands.ts"
import { settingsDocs, settingsFlags } from "../src/config.ts"
import { home, run, started } from "./support/cli.ts"

/** Runs the CLI in this process with `env` as its whole environment; what it printed, and whether it failed. */
const cli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const console = {
      ...globalThis.console,
      log: (...parts: ReadonlyArray<unknown>) => void stdout.push(parts.join(" ")),
      error: (...parts: ReadonlyArray<unknown>) => void stderr.push(parts.join(" "))
    } as unknown as Console.Console
    const exit = yield* runCli(args).pipe(
      Effect.provide(NodeServices.layer),
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)),
      Effect.provideService(Console.Console, console),
      Effect.exit
    )
    return { failed: Exit.isFailure(exit), stdout: stdout.join("\n"), stderr: stderr.join("\n").split("\n").filter((l) => l !== "") }
  })

type Key = keyof typeof settingsFlags

/**
 * An invalid value for every setting and the line it must produce (`source`
 * is the variable or the flag it came from). Integers and choices get a value
 * they refuse; text settings accept any text at this stage, so their row is
 * a value the cross-field rules refuse, or (paths) is left to the start-up
 * checks below, or (`"any"`) no value stops the start (`SVC_UI_DIR`: without
 * a build there the console answers 404, test/http/ui.test.ts). A new text
 * setting has to say which it is here.
 */
const invalid = (key: Key): { readonly value: string; readonly line: (source: string) => RegExp } | "path" | "any" => {
  const setting = settingsFlags[key].setting
  switch (setting.kind) {
    case "integer":
      return { value: "12x", line: (source) => exactly(`svc-gateway: invalid ${source} "12x": expected an integer `, "(\\d+\\.\\.\\d+|>= \\d+)") }
    case "choice":
      return { value: "no-such-choice", line: (source) => exactly(`svc-gateway: invalid ${source} "no-such-choice": expected `, ".+ \\(any case\\)") }
    case "text":
      return TEXT[key] ?? fail(`${key} (${setting.env}) is a text setting: add it to TEXT`)
  }
}
const fail = (message: string): never => {
  throw new Error(message)
}

const TEXT: Partial<Record<Key, { readonly value: string; readonly line: (source: string) => RegExp } | "path" | "any">> = {
  host: { value: " ", line: () => exactly("svc-gateway: SVC_HOST / --host must not be empty") },
  databaseUrl: { value: "mysql://db", line: () => exactly("svc-gateway: SVC_DATABASE_URL / --database-url must be a postgres://", ".+") },
  otlpEndpoint: { value: "collector:4318", line: () => exactly("svc-gateway: OTEL_EXPORTER_OTLP_ENDPOINT / --otlp-endpoint must be an http", ".+") },
  modelsDevUrl: { value: "models.dev", line: () => exactly("svc-gateway: SVC_MODELS_DEV_URL / --models-dev-url must be an http:// or https:// base URL", ".+") },
  adminToken: { value: "  ", line: () => exactly("svc-gateway: SVC_ADMIN_TOKEN / --admin-token is set but empty") },
  tracePropagationTargets: {
    value: "ftp://files.example/*",
    line: () => exactly("svc-gateway: SVC_TRACE_PROPAGATION_TARGETS / --trace-propagation-targets: each entry must be a URL pattern", ".+")
  },
  s3Bucket: { value: "No_Such", line: () => exactly("svc-gateway: SVC_S3_BUCKET / --s3-bucket must be a bucket name", ".+") },
  s3Endpoint: { value: "ftp://s3", line: () => exactly("svc-gateway: SVC_S3_ENDPOINT / --s3-endpoint must be an http:// or https:// URL", ".+") },
  s3Region: { value: "US EAST", line: () => exactly("svc-gateway: SVC_S3_REGION / --s3-region must be a region name", ".+") },
  // Alone, either credential is refused by the cross-field rule (both or neither).
  s3AccessKeyId: { value: "AKIA", line: () => exactly("svc-gateway: SVC_S3_ACCESS_KEY_ID and SVC_S3_SECRET_ACCESS_KEY are set together", ".+") },
  s3SecretAccessKey: { value: "s3cr3t", line: () => exactly("svc-gateway: SVC_S3_ACCESS_KEY_ID and SVC_S3_SECRET_ACCESS_KEY are set together", ".+") },
  embeddingsBaseUrl: { value: "ftp://embed.example", line: () => exactly("svc-gateway: SVC_EMBEDDINGS_BASE_URL / --embeddings-base-url must be an http", ".+") },
  embeddingsModel: { value: " ", line: () => exactly("svc-gateway: SVC_EMBEDDINGS_MODEL / --embeddings-model must not be empty") },
  embeddingsApiKey: { value: "  ", line: () => exactly("svc-gateway: SVC_EMBEDDINGS_API_KEY / --embeddings-api-key is set but empty") },
  agentModel: { value: "no-slash", line: () => exactly("svc-gateway: SVC_AGENT_MODEL must be a model id provider/model", ".+") },
  openaiBaseUrl: { value: "ftp://x", line: () => exactly("svc-gateway: SVC_OPENAI_BASE_URL must be an http(s) URL", ".+") },
  anthropicBaseUrl: { value: "ftp://x", line: () => exactly("svc-gateway: SVC_ANTHROPIC_BASE_URL must be an http(s) URL", ".+") },
  messengerBotToken: { value: "  ", line: () => exactly("svc-gateway: MESSENGER_BOT_TOKEN / --messenger-bot-token is set but empty") },
  messengerWebhookSecret: { value: "  ", line: () => exactly("svc-gateway: MESSENGER_WEBHOOK_SECRET / --messenger-webhook-secret is set but empty") },
  messengerApiUrl: { value: "ftp://x", line: () => exactly("svc-gateway: MESSENGER_API_URL / --messenger-api-url must be an http(s) URL", ".+") },
  clusterSecret: { value: "too-short", line: () => exactly("svc-gateway: SVC_CLUSTER_SECRET / --cluster-secret must be at least 32 characters", ".+") },
  runnerHost: { value: "gw 1", line: () => exactly("svc-gateway: SVC_RUNNER_HOST / --runner-host must be a host name or an IP address", ".+") },
  redisUrl: { value: "http://cache", line: () => exactly("svc-gateway: SVC_REDIS_URL / --redis-url must be a redis:// or rediss:// URL") },
  home: "path",
  policyBundlePath: "path",
  oauthProvidersConfig: "path",
  secretsMasterKeyPath: "path",
  uiDir: "any"
}

/** `^<literal text><pattern>$`. */
const exactly = (text: string, pattern = "") => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}${pattern}$`)

const KEYS = Object.keys(settingsFlags) as Array<Key>
const PATHS = KEYS.filter((key) => invalid(key) === "path")
const ANY = KEYS.filter((key) => invalid(key) === "any")
const ROWS = KEYS.flatMap((key) => {
  const row = invalid(key)
  return row === "path" || row === "any" ? [] : [[key, settingsFlags[key].setting, row] as const]
})

describe("every setting: an invalid value is one line naming it (in process)", () => {
  it("every setting has an invalid value or is a path checked at start", () => {
    expect([...ROWS.map(([key]) => key), ...PATHS, ...ANY].sort()).toEqual([...KEYS].sort())
    expect(PATHS.sort()).toEqual(["home", "oauthProvidersConfig", "policyBundlePath", "secretsMasterKeyPath"])
    expect(ANY).toEqual(["uiDir"])
  })

  it.effect.each(ROWS)("%s from its environment variable", ([, setting, { line, value }]) =>
    Effect.gen(function*() {
      const result = yield* cli(["serve"], { [setting.env]: value })
      expect(result.failed).toBe(true)
      expect(result.stdout).toBe("")
      expect(result.stderr).toHaveLength(1)
      expect(result.stderr[0]).toMatch(line(setting.env))
    }))

  it.effect.each(ROWS)("%s from its flag", ([, setting, { line, value }]) =>
    Effect.gen(function*() {
      const result = yield* cli(["serve", `${setting.flag}=${value}`], {})
      expect(result.failed).toBe(true)
      expect(result.stdout).toBe("")
      expect(result.stderr).toHaveLength(1)
      expect(result.stderr[0]).toMatch(line(setting.flag))
    }))

  it.effect("the accepted values are spelled out", () =>
    Effect.gen(function*() {
      const result = yield* cli(["serve"], {
        SVC_PORT: "70000",
        SVC_LOG_LEVEL: "loud",
        SVC_AUTH: "disabled",
        SVC_SECRET_PROVIDER: "vault",
        SVC_ENGINE_API_ENABLED: "yes",
        SVC_EXEC_CONCURRENCY: "0",
        SVC_MEMORY_SEMANTIC: "vectors"
      })
      expect(result.stderr).toEqual([
        "svc-gateway: invalid SVC_PORT \"70000\": expected an integer 0..65535",
        "svc-gateway: invalid SVC_LOG_LEVEL \"loud\": expected one of Trace, Debug, Info, Warn, Error (any case)",
        "svc-gateway: invalid SVC_SECRET_PROVIDER \"vault\": expected db or env (any case)",
        "svc-gateway: invalid SVC_ENGINE_API_ENABLED \"yes\": expected 0 or 1 (any case)",
        "svc-gateway: invalid SVC_AUTH \"disabled\": expected on or off (any case)",
        "svc-gateway: invalid SVC_EXEC_CONCURRENCY \"0\": expected an integer >= 1",
        "svc-gateway: invalid SVC_MEMORY_SEMANTIC \"vectors\": expected one of off, builtin, openai (any case)"
      ])
    }))

  it.effect("a flag wins over its variable, and each bad setting gets its own line", () =>
    Effect.gen(function*() {
      const result = yield* cli(["serve", "--port", "99999", "--metrics", "sometimes"], { SVC_PORT: "8080", SVC_LOG_LEVEL: "verbose" })
      expect(result.stderr).toEqual([
        "svc-gateway: invalid --port \"99999\": expected an integer 0..65535",
        "svc-gateway: invalid SVC_LOG_LEVEL \"verbose\": expected one of Trace, Debug, Info, Warn, Error (any case)",
        "svc-gateway: invalid --metrics \"sometimes\": expected on or off (any case)"
      ])
    }))

  it.effect("a secret's value is never repeated", () =>
    Effect.gen(function*() {
      const result = yield* cli(["serve", "--host", "0.0.0.0"], { SVC_ADMIN_TOKEN: "short-secret-value" })
      expect(result.stderr.join("\n")).toMatch(/at least 32 characters \(SVC_ADMIN_TOKEN\)/)
      expect(result.stderr.join("\n")).not.toContain("short-secret-value")
    }))

  it.effect("a missing flag value is one line, not the usage", () =>
    Effect.gen(function*() {
      const result = yield* cli(["serve", "--port"], {})
      expect(result.failed).toBe(true)
      expect(result.stdout).toBe("")
      expect(result.stderr).toHaveLength(1)
      expect(result.stderr[0]).toMatch(/^svc-gateway: .*--port.*\(see svc-gateway serve --help\)$/)
    }))

  it.effect("an unknown flag prints the usage and names the flag", () =>
    Effect.gen(function*() {
      const result = yield* cli(["serve", "--prot", "1"], {})
      expect(result.failed).toBe(true)
      expect(result.stdout).toContain("USAGE")
      expect(result.stderr.join("\n")).toContain("--prot")
    }))
})

describe("svc-gateway serve: settings through the bundled CLI", () => {
  const finished = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
    const r = run(args, { SVC_HOME: home(), ...env })
    const code = await r.exited
    return { code, stdout: r.stdout, stderr: r.stderr }
  }

  it("SVC_PORT=abc: one line naming SVC_PORT, exit 1, no usage", async () => {
    const result = await finished(["serve"], { SVC_PORT: "abc" })
    expect(result).toEqual({ code: 1, stdout: "", stderr: "svc-gateway: invalid SVC_PORT \"abc\": expected an integer 0..65535\n" })
  })

  it("--port abc: one line naming --port", async () => {
    const result = await finished(["serve", "--port", "abc"], {})
    expect(result).toEqual({ code: 1, stdout: "", stderr: "svc-gateway: invalid --port \"abc\": expected an integer 0..65535\n" })
  })

  it("SVC_LOG_LEVEL=loud: one line with the accepted values", async () => {
    const result = await finished(["serve", "--port", "0"], { SVC_LOG_LEVEL: "loud" })
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: "svc-gateway: invalid SVC_LOG_LEVEL \"loud\": expected one of Trace, Debug, Info, Warn, Error (any case)\n"
    })
  })

  it.each([
    [{ SVC_LOG_LEVEL: "info" }, []],
    [{ SVC_LOG_LEVEL: "DEBUG" }, []],
    [{}, ["--log-level", "debug"]],
    [{ SVC_LOG_LEVEL: "iNfO" }, []]
  ])("log level in any case: %j %j", async (env, flags) => {
    const r = run(["serve", "--port", "0", ...flags], { SVC_HOME: home(), SVC_ADMIN_TOKEN: "a".repeat(40), ...env })
    try {
      const level = (flags[1] ?? (env as { SVC_LOG_LEVEL: string }).SVC_LOG_LEVEL).toLowerCase()
      await started(r)
      expect(r.stdout.includes("\"level\":\"DEBUG\"")).toBe(level === "debug")
      expect(r.stderr).toBe("")
    } finally {
      r.child.kill("SIGKILL")
    }
  })

  it("an unknown flag prints the usage", async () => {
    const result = await finished(["serve", "--no-such-flag"], {})
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("USAGE")
    expect(result.stderr).toContain("--no-such-flag")
  })

  it.each(PATHS)("paths that cannot be used: %s names the path and exits 1 with one line", async (key) => {
    const setting = settingsFlags[key].setting
    // A path below a regular file can neither be read nor created, even by root.
    const file = join(home(), "a-file")
    writeFileSync(file, "")
    const path = join(file, "x", "y")
    const env: Record<string, string> = { SVC_PORT: "0", SVC_ADMIN_TOKEN: "b".repeat(40), [setting.env]: path }
    if (key !== "home") env.SVC_HOME = home()
    const r = run(["serve"], env)
    const code = await r.exited
    expect(code).toBe(1)
    const lines = r.stderr.split("\n").filter((l) => l !== "")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(path)
  })
})

describe("svc-gateway --help", () => {
  it("lists every setting with its variable, flag and default, in one line each", async () => {
    const r = run(["--help"], {})
    expect(await r.exited).toBe(0)
    for (const setting of settingsDocs) {
      const line = r.stdout.split("\n").find((l) => l.trim().startsWith(`${setting.env} `))
      expect(line, setting.env).toBeDefined()
      expect(line).toContain(` ${setting.flag} `)
      expect(line!.trimEnd().endsWith(` ${setting.default}`)).toBe(true)
    }
  })

  it("lists the settings of the README's table, and the README lists every setting", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8")
    const rows = readme.split("\n").filter((l) => /^\| `[A-Z0-9_]+` \| `--/.test(l)).map((l) => l.split("|").map((c) => c.trim()))
    expect(rows.map((r) => [r[1], r[2]]).sort()).toEqual(settingsDocs.map((s) => [`\`${s.env}\``, `\`${s.flag}\``]).sort())
  })
})
