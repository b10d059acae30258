/**
 * Reading policy bundle files (reference §1.3): the deployment bundle at
 * `SVC_POLICY_BUNDLE_PATH` and the agent bundle at
 * `$SVC_HOME/policy.yml|policy.yaml|policy.json` (the first that exists).
 * Files ending in `.json` are parsed as JSON, any other as YAML 1.2 (the
 * `yaml` package: duplicate keys are errors, at most 100 aliases); the
 * content is then decoded strictly (`decodePolicyBundle`).
 *
 * @module
 */
import { Effect, FileSystem, Result } from "effect"
import { join } from "node:path"
import { parse as parseYaml } from "yaml"
import { decodePolicyBundle } from "./bundle.ts"
import { PolicyBundleLoadError } from "./errors.ts"
import type { PolicyBundleV1 } from "./schema.ts"

/** Largest bundle file read, in bytes (1 MiB). */
export const MAX_BUNDLE_BYTES = 1_048_576

/** Agent bundle file names under `$SVC_HOME`, in lookup order. */
export const AGENT_BUNDLE_FILES = ["policy.yml", "policy.yaml", "policy.json"] as const

const firstLine = (message: string): string => message.split("\n")[0].trim()

/** Parses a bundle file's text: JSON when `path` ends in `.json`, else YAML. */
export const parseBundleText = (text: string, path: string): Result.Result<unknown, string> => {
  const json = path.toLowerCase().endsWith(".json")
  try {
    return Result.succeed(json ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true, maxAliasCount: 100, prettyErrors: true }))
  } catch (error) {
    return Result.fail(`invalid ${json ? "JSON" : "YAML"}: ${firstLine(error instanceof Error ? error.message : String(error))}`)
  }
}

const describe = (error: unknown): string =>
  error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? firstLine(String((error as { message: unknown }).message))
    : String(error)

/**
 * Reads, parses and decodes the bundle file at `path`. Fails with
 * {@link PolicyBundleLoadError} whose message names `what` (e.g. "deployment
 * policy bundle"), the path and the problem.
 */
export const readBundleFile = Effect.fnUntraced(function*(path: string, what: string) {
  const fs = yield* FileSystem.FileSystem
  const fail = (problem: string) => new PolicyBundleLoadError({ message: `${what} ${path}: ${problem}`, path })
  const info = yield* fs.stat(path).pipe(Effect.mapError((e) => fail(`cannot read the file (${describe(e)})`)))
  if (info.type !== "File") return yield* fail("not a regular file")
  if (Number(info.size) > MAX_BUNDLE_BYTES) return yield* fail(`larger than ${MAX_BUNDLE_BYTES} bytes`)
  const text = yield* fs.readFileString(path).pipe(Effect.mapError((e) => fail(`cannot read the file (${describe(e)})`)))
  const parsed = parseBundleText(text, path)
  if (Result.isFailure(parsed)) return yield* fail(parsed.failure)
  const bundle = decodePolicyBundle(parsed.success)
  if (Result.isFailure(bundle)) return yield* fail(`invalid policy bundle: ${bundle.failure}`)
  return bundle.success satisfies PolicyBundleV1 as PolicyBundleV1
})

/** The agent bundle's path: the first of {@link AGENT_BUNDLE_FILES} that exists under `home`, if any. */
export const findAgentBundle = Effect.fnUntraced(function*(home: string) {
  const fs = yield* FileSystem.FileSystem
  for (const name of AGENT_BUNDLE_FILES) {
    const path = join(home, name)
    if (yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false))) return path
  }
  return undefined
})
