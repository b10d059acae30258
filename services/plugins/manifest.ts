/**
 * The plugin manifest (issue 26 §1; reference §7.7; docs/plugins.md
 * "Manifest"): `plugin.yml`, `plugin.yaml` or `plugin.json` in the plugin's
 * directory, decoded strictly (an unknown key is refused), and
 * {@link parseManifest}, which names the line of the first problem. JSON is
 * read by the same YAML parser (JSON is YAML), so both kinds get lines.
 *
 * @module
 */
import { Result, Schema, SchemaIssue, SchemaParser } from "effect"
import { formatIssue } from "../shared/decode.ts"
import { keyOf, lineAt, loadYaml } from "../shared/yaml.ts"

/** The manifest file names, in the order they are looked for. */
export const MANIFEST_FILES = ["plugin.yml", "plugin.yaml", "plugin.json"] as const

/** Largest manifest read, in bytes (256 KiB). */
export const MAX_MANIFEST_BYTES = 262_144

/** A plugin id: lowercase letters, digits, `-` and `_`, 1–32 (it names the directory, the tools and the route). */
export const PLUGIN_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/

/** A contributed name (tool, command, route): lowercase letters, digits, `-` and `_`, 1–24. */
const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,23}$/

const text = (max: number) => Schema.String.check(Schema.isMaxLength(max, { expected: `a string of at most ${max} characters` }))
const name = (what: string) =>
  Schema.String.check(Schema.isPattern(NAME_PATTERN, { expected: `a ${what} name: lowercase letters, digits, - and _, at most 24` }))
const list = <S extends Schema.Top>(item: S, max: number) =>
  Schema.Array(item).check(Schema.isMaxLength(max, { expected: `a list of at most ${max} entries` }))

/** A JSON Schema object (the manifest's `config_schema`, a tool's `parameters`). */
const JsonSchemaObject = Schema.Record(Schema.String, Schema.Unknown)

/** A contributed tool: offered to agents as `plugin_<id>_<name>`, governed as `plugin.<id>.<name>`. */
export const ManifestTool = Schema.Struct({
  name: name("tool"),
  description: text(1024),
  /** JSON Schema of the arguments (default: any object). */
  parameters: Schema.optionalKey(JsonSchemaObject),
  /** The secret handles this tool receives; each must be in `permissions.secrets`. */
  secrets: Schema.optionalKey(list(text(128), 16))
})
export type ManifestTool = typeof ManifestTool.Type

/** A contributed slash command: `/<name> <args>` in `command.execute` and `/help`. */
export const ManifestCommand = Schema.Struct({ name: name("command"), help: text(200) })
export type ManifestCommand = typeof ManifestCommand.Type

/** Operator scopes a route may require. */
export const ROUTE_SCOPES = ["operator.read", "operator.write", "operator.approvals", "operator.admin"] as const

/** A method of the plugin's RPC router at `/plugins/<id>/rpc/<name>` (default scope operator.admin). */
export const ManifestRoute = Schema.Struct({
  name: name("route"),
  scope: Schema.optionalKey(Schema.Literals(ROUTE_SCOPES)),
  description: Schema.optionalKey(text(1024))
})
export type ManifestRoute = typeof ManifestRoute.Type

/** An MCP server the plugin brings: a stdio command or a Streamable HTTP URL (exactly one). */
export const ManifestMcpServer = Schema.Struct({
  name: name("server"),
  command: Schema.optionalKey(text(1024)),
  args: Schema.optionalKey(list(text(1024), 64)),
  env: Schema.optionalKey(Schema.Record(Schema.String, text(4096))),
  url: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^https?:\/\/\S+$/, { expected: "an http(s) URL" })))
}).check(Schema.makeFilter((server) =>
  (server.command === undefined) !== (server.url === undefined) ? undefined : "exactly one of command or url"
))
export type ManifestMcpServer = typeof ManifestMcpServer.Type

/** What a plugin adds. */
export const ManifestContributions = Schema.Struct({
  tools: Schema.optionalKey(list(ManifestTool, 64)),
  commands: Schema.optionalKey(list(ManifestCommand, 64)),
  routes: Schema.optionalKey(list(ManifestRoute, 64)),
  mcp_servers: Schema.optionalKey(list(ManifestMcpServer, 16))
})

/**
 * What a plugin asks for. `secrets` is enforced (a tool receives only the
 * handles it names, which must be listed here); `tools`, `network_egress`
 * and `db` are declarations shown to the operator (docs/plugins.md
 * "Permissions").
 */
export const ManifestPermissions = Schema.Struct({
  tools: Schema.optionalKey(list(text(256), 64)),
  network_egress: Schema.optionalKey(list(text(256), 64)),
  secrets: Schema.optionalKey(list(text(128), 64)),
  db: Schema.optionalKey(Schema.Boolean)
})

/** `plugin.yml`: `{id, name, version, description?, entry?, config_schema, contributes?, permissions?}`. */
export const PluginManifest = Schema.Struct({
  id: Schema.String.check(
    Schema.isPattern(PLUGIN_ID_PATTERN, { expected: "a plugin id: lowercase letters, digits, - and _, at most 32" })
  ),
  name: text(128),
  version: text(64).check(Schema.isMinLength(1, { expected: "a non-empty version" })),
  description: Schema.optionalKey(text(4096)),
  /** The ES module run in the plugin's worker, relative to its directory. */
  entry: Schema.optionalKey(text(256)),
  config_schema: JsonSchemaObject,
  contributes: Schema.optionalKey(ManifestContributions),
  permissions: Schema.optionalKey(ManifestPermissions)
})
export type PluginManifest = typeof PluginManifest.Type

/** Why a manifest did not load, with the 1-based line when known. */
export interface ManifestProblem {
  readonly message: string
  readonly line?: number | undefined
}

// No `reportInput`: a message must not quote the file.
const decodeManifest = SchemaParser.decodeUnknownResult(PluginManifest, { errors: "first", onExcessProperty: "error" })
const issuePath = SchemaIssue.makeFormatterStandardSchemaV1()

/** A cross-field problem: its message (starting with the field) and where to point (a path in the document). */
interface CrossProblem {
  readonly message: string
  readonly at: ReadonlyArray<string | number>
}

/** Rules across fields the schema cannot say: unique names, granted secrets, an entry for anything to run. */
const crossCheck = (manifest: PluginManifest): CrossProblem | undefined => {
  const contributes = manifest.contributes ?? {}
  for (const kind of ["tools", "commands", "routes", "mcp_servers"] as const) {
    const names = (contributes[kind] ?? []).map((c) => c.name)
    const twice = names.findIndex((n, i) => names.indexOf(n) !== i)
    if (twice >= 0) return { message: `contributes.${kind}: "${names[twice]}" is listed twice`, at: ["contributes", kind, twice] }
  }
  const granted = new Set(manifest.permissions?.secrets ?? [])
  for (const [index, tool] of (contributes.tools ?? []).entries()) {
    const missing = (tool.secrets ?? []).find((s) => !granted.has(s))
    if (missing !== undefined) {
      return {
        message: `contributes.tools: ${tool.name} needs secret "${missing}", which permissions.secrets does not grant`,
        at: ["contributes", "tools", index, "secrets"]
      }
    }
  }
  const runs = (contributes.tools?.length ?? 0) + (contributes.commands?.length ?? 0) + (contributes.routes?.length ?? 0)
  if (runs > 0 && manifest.entry === undefined) {
    return { message: "entry: required when the plugin contributes tools, commands or routes", at: ["contributes"] }
  }
  if (manifest.entry !== undefined && (manifest.entry.startsWith("/") || manifest.entry.split(/[\\/]/).includes(".."))) {
    return { message: "entry: must be a path inside the plugin's directory", at: ["entry"] }
  }
  return undefined
}

/** Parses and decodes a manifest's text (YAML or JSON). */
export const parseManifest = (text: string): Result.Result<PluginManifest, ManifestProblem> => {
  const loaded = loadYaml(text)
  if (Result.isFailure(loaded)) {
    return Result.fail({ message: `invalid YAML/JSON: expected ${loaded.failure.expected}`, line: loaded.failure.line })
  }
  const { content, root, counter } = loaded.success
  const decoded = decodeManifest(content)
  if (Result.isFailure(decoded)) {
    const path = (issuePath(decoded.failure).issues[0]?.path ?? []).map(keyOf)
    return Result.fail({ message: formatIssue(decoded.failure, "manifest"), line: lineAt(root, path, counter) })
  }
  const problem = crossCheck(decoded.success)
  if (problem !== undefined) return Result.fail({ message: problem.message, line: lineAt(root, problem.at, counter) })
  return Result.succeed(decoded.success)
}
