/**
 * MCP server specs and `$SVC_HOME/mcp.yml` (issue 26 §2; docs/mcp.md "mcp.yml"):
 *
 * ```yaml
 * servers:
 *   files:                       # a stdio server: the gateway starts the command
 *     command: /usr/local/bin/mcp-files
 *     args: [--root, /srv/shared]
 *     env: { LOG_LEVEL: warn }   # the child's whole environment besides PATH and HOME
 *     cwd: /srv/shared
 *   tickets:                     # a streamable HTTP server
 *     url: https://mcp.example.com/mcp
 *     headers: { authorization: "Bearer …" }
 * ```
 *
 * Strict: an unknown field, a server with both or neither of `command` and `url`, or a bad name is an error
 * naming the file and the line (`mcp.yml line 4: servers.files.args: expected an array`). A broken entry is reported
 * and skipped; the other servers still start. A file that does not parse at all gives one error and no server.
 *
 * @module
 */
import { Effect, FileSystem, Result, Schema, SchemaIssue, SchemaParser } from "effect"
import { join } from "node:path"
import { formatIssue } from "../shared/decode.ts"
import { nonEmptyText, StrictStruct } from "../shared/schemas.ts"
import { keyOf, lineAt, loadYaml } from "../shared/yaml.ts"

/** The config file's name in `$SVC_HOME`. */
export const MCP_CONFIG_FILE = "mcp.yml"

/** Largest `mcp.yml` read (256 KiB). */
export const MAX_MCP_CONFIG_BYTES = 256 * 1024

/** A server name: letters, digits, `_` and `-`, 1 to 32, starting with a letter or digit (tool names stay ≤ 64). */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/

/** A server's name, as in `mcp_<server>_<tool>` and `mcp.<server>.<tool>`. */
export const ServerName = Schema.String.check(
  Schema.isPattern(SERVER_NAME_PATTERN, { expected: "a server name (1 to 32 letters, digits, _ or -, starting with a letter or digit)" })
)

const StringMap = Schema.Record(Schema.String, Schema.String)

/** A stdio server: the command the gateway starts, speaking MCP over its stdin and stdout. */
export const StdioServerSpec = StrictStruct({
  command: nonEmptyText(4_096).annotate({ description: "The program (a path, or a name looked up in PATH)." }),
  args: Schema.optionalKey(Schema.Array(Schema.String)).annotate({ description: "Its arguments." }),
  env: Schema.optionalKey(StringMap).annotate({
    description: "Its environment besides PATH and HOME (the gateway's own environment is not passed on)."
  }),
  cwd: Schema.optionalKey(nonEmptyText(4_096)).annotate({ description: "Its working directory." })
}).annotate({ identifier: "McpStdioServerSpec" })
export type StdioServerSpec = typeof StdioServerSpec.Type

/** An http(s) URL. */
const HttpUrl = Schema.String.check(Schema.makeFilter((text: string) => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}, { expected: "an http(s) URL" }))

/** A streamable HTTP server. */
export const HttpServerSpec = StrictStruct({
  url: HttpUrl.annotate({ description: "The server's MCP endpoint." }),
  headers: Schema.optionalKey(StringMap).annotate({ description: "Headers sent with every request (e.g. authorization); never logged." })
}).annotate({ identifier: "McpHttpServerSpec" })
export type HttpServerSpec = typeof HttpServerSpec.Type

/** A server spec: stdio (`command`) or HTTP (`url`). */
export type McpServerSpec = StdioServerSpec | HttpServerSpec

/** Whether `spec` is a stdio server. */
export const isStdio = (spec: McpServerSpec): spec is StdioServerSpec => "command" in spec

/** A problem in `mcp.yml`: the file, the 1-based line when known, and what is wrong. */
export interface McpConfigError {
  readonly file: string
  readonly line?: number
  readonly message: string
}

/** What `mcp.yml` gave: the valid servers by name (in file order) and the problems. */
export interface McpConfig {
  readonly servers: ReadonlyArray<{ readonly name: string; readonly spec: McpServerSpec }>
  readonly errors: ReadonlyArray<McpConfigError>
}

const parseOptions = { errors: "first", onExcessProperty: "error" } as const
const decodeTop = SchemaParser.decodeUnknownResult(
  StrictStruct({ servers: Schema.Record(Schema.String, Schema.Unknown) }),
  parseOptions
)
const decodeStdio = SchemaParser.decodeUnknownResult(StdioServerSpec, parseOptions)
const decodeHttp = SchemaParser.decodeUnknownResult(HttpServerSpec, parseOptions)
const issuePath = SchemaIssue.makeFormatterStandardSchemaV1()

/** Decodes one server entry (`servers.<name>`): which transport it is, then that transport's strict shape. */
export const decodeServerSpec = (value: unknown): Result.Result<McpServerSpec, SchemaIssue.Issue | string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Result.fail("expected a mapping with command or url")
  const hasCommand = "command" in value
  const hasUrl = "url" in value
  if (hasCommand === hasUrl) return Result.fail("a server has either command (stdio) or url (HTTP), not both or neither")
  return hasUrl ? decodeHttp(value) : decodeStdio(value)
}

/** Parses `mcp.yml`'s text; `file` names it in the errors. */
export const parseMcpConfig = (file: string, text: string): McpConfig => {
  const loaded = loadYaml(text)
  if (Result.isFailure(loaded)) {
    return { servers: [], errors: [{ file, ...lineOf(loaded.failure.line), message: `invalid YAML: expected ${loaded.failure.expected}` }] }
  }
  const { content, root, counter } = loaded.success
  // An empty file is no server.
  if (content === null || content === undefined) return { servers: [], errors: [] }
  const located = (path: ReadonlyArray<PropertyKey>, message: string): McpConfigError => ({
    file,
    ...lineOf(lineAt(root, path, counter)),
    message
  })
  const top = decodeTop(content)
  if (Result.isFailure(top)) {
    const path = (issuePath(top.failure).issues[0]?.path ?? []).map(keyOf)
    return { servers: [], errors: [located(path, formatIssue(top.failure, "mcp.yml"))] }
  }
  const servers: Array<{ name: string; spec: McpServerSpec }> = []
  const errors: Array<McpConfigError> = []
  for (const [name, value] of Object.entries(top.success.servers)) {
    const label = `servers.${name}`
    if (!SERVER_NAME_PATTERN.test(name)) {
      errors.push(located(["servers", name], `${label}: not a server name (1 to 32 letters, digits, _ or -, starting with a letter or digit)`))
      continue
    }
    const spec = decodeServerSpec(value)
    if (Result.isFailure(spec)) {
      const issue = spec.failure
      if (typeof issue === "string") {
        errors.push(located(["servers", name], `${label}: ${issue}`))
      } else {
        const path = (issuePath(issue).issues[0]?.path ?? []).map(keyOf)
        errors.push(located(["servers", name, ...path], path.length === 0 ? formatIssue(issue, label) : `${label}.${formatIssue(issue)}`))
      }
      continue
    }
    servers.push({ name, spec: spec.success })
  }
  return { servers, errors }
}

const lineOf = (line: number | undefined) => (line === undefined ? {} : { line })

/**
 * Reads `<home>/mcp.yml`: no file is no server; an unreadable or oversized file is one error. Needs `FileSystem`.
 */
export const loadMcpConfig = Effect.fnUntraced(function*(home: string) {
  const fs = yield* FileSystem.FileSystem
  const file = join(home, MCP_CONFIG_FILE)
  if (!(yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false)))) return { servers: [], errors: [] } satisfies McpConfig
  const read = yield* Effect.result(fs.readFile(file))
  if (Result.isFailure(read)) return { servers: [], errors: [{ file, message: "cannot read the file" }] } satisfies McpConfig
  if (read.success.byteLength > MAX_MCP_CONFIG_BYTES) {
    return { servers: [], errors: [{ file, message: `larger than ${MAX_MCP_CONFIG_BYTES} bytes` }] } satisfies McpConfig
  }
  return parseMcpConfig(file, new TextDecoder().decode(read.success))
})
