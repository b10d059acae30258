/**
 * Compiling a playbook manifest to workflow steps (issue 13 §1; reference
 * §6.6; docs/playbooks.md "Compilation"). Pure: no file system, no policy.
 *
 * A step's `command` is split like a POSIX shell word list (the `shlex`
 * package: single and double quotes, backslash escapes; an unterminated
 * quote is an error) but never run by a shell: no variables, globs or
 * operators. Its first word is the namespace:
 *
 * | command | compiled step |
 * |---|---|
 * | `http [METHOD] <url>` | `Http {method (GET), url, body? (stdin)}` |
 * | `cli <cmd> [args…]` | `CLI {cmd, args}` |
 * | `node <capability> [action] [args…]` | `Node {capability, action?, args?, stdin?}` |
 * | `web [action] <url>` | `Web {url, action?}` |
 * | `mcp <server> <tool> [json]` | `Mcp {server, tool, arguments? (json, else stdin as JSON)}` |
 * | `llm` | `Llm {model, prompt, max_tool_calls?, tools?}` (from the step's `llm`) |
 *
 * `approval: required` adds a `Confirm` step right before the step. Every
 * compiled step carries `idempotency_key = playbook:<id>:<step id>`
 * (`…:approval` for the Confirm), the step's `postcondition`, and
 * `args.__playbook = {playbook_id, version, step_id, condition?, output?,
 * rollback_hint?}`; it is decoded through the engine's `WorkflowStep`
 * (defaults `max_attempts` 3, `timeout_ms` 60000).
 *
 * A problem names the manifest path it is about (for the line number) and
 * reads `<path>: <what is wrong>`; it never quotes the manifest's values
 * (issue 20 §5), except a shell operator, which is one of a fixed set.
 *
 * @module
 */
import { Result, Schema, SchemaParser } from "effect"
import { split } from "shlex"
import { CapabilityId } from "../nodes/schema.ts"
import { formatIssue, formatPath } from "../shared/decode.ts"
import { MAX_STEPS, WorkflowStep } from "../workflow/runs/schema.ts"
import type { PlaybookManifest, PlaybookStep } from "./schema.ts"

/** Command namespaces (the first word of a step's `command`). */
export const NAMESPACES = ["cli", "http", "web", "mcp", "node", "llm"] as const
export type Namespace = typeof NAMESPACES[number]

/** HTTP methods an `http` step may name. */
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

/** Words that a shell would read as operators: refused in `cli` steps, which never run a shell. */
const SHELL_OPERATORS = new Set(["|", "||", "&", "&&", ";", ";;", ">", ">>", "<", "<<", "2>", "2>&1", "&>"])

/** A problem with a manifest: the path of the offending node and one line naming it. */
export interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** A compiled playbook: the workflow steps and, for each, the playbook step id it comes from (`<id>:approval` for a Confirm). */
export interface CompiledPlaybook {
  readonly steps: ReadonlyArray<WorkflowStep>
  readonly step_ids: ReadonlyArray<string>
}

const problem = (path: ReadonlyArray<PropertyKey>, message: string): Problem => ({
  path,
  message: `${formatPath(path, "playbook")}: ${message}`
})

/** Splits a command into words, or says why it cannot. */
export const tokenize = (command: string): ReadonlyArray<string> | string => {
  try {
    return split(command)
  } catch (error) {
    return `cannot split the command (${error instanceof Error ? error.message : String(error)})`
  }
}

/** True when `host` is one of `domains` or a subdomain of one (`*.example.com` reads as `example.com`). */
export const hostAllowed = (host: string, domains: ReadonlyArray<string>): boolean => {
  const h = host.toLowerCase().replace(/\.$/, "")
  return domains.some((domain) => {
    const d = domain.toLowerCase().replace(/^\*\./, "").replace(/\.$/, "")
    return h === d || h.endsWith(`.${d}`)
  })
}

const isCapability = Schema.is(CapabilityId)
const decodeStep = SchemaParser.decodeUnknownResult(WorkflowStep, { errors: "first", onExcessProperty: "ignore" })

type Raw = { readonly type: string; readonly args: Record<string, unknown> }

/** The namespace-specific part of one step: its action, or a problem (relative to the step). */
const actionOf = (
  manifest: PlaybookManifest,
  step: PlaybookStep,
  at: ReadonlyArray<PropertyKey>
): Raw | Problem => {
  const commandPath = [...at, "command"]
  const words = tokenize(step.command)
  if (typeof words === "string") return problem(commandPath, words)
  const [namespace, ...rest] = words
  if (namespace === undefined) return problem(commandPath, "the command is empty")
  if (!(NAMESPACES as ReadonlyArray<string>).includes(namespace)) {
    return problem(commandPath, `unknown command namespace (expected one of ${NAMESPACES.join(", ")})`)
  }
  const ns = namespace as Namespace
  if (step.llm !== undefined && ns !== "llm") return problem([...at, "llm"], "llm is only allowed on llm steps")
  const noStdin = (why: string) =>
    step.stdin === undefined ? undefined : problem([...at, "stdin"], `stdin is not supported by ${ns} steps (${why})`)

  const urlOf = (raw: string): URL | Problem => {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      // Not echoed: a URL may carry credentials.
      return problem(commandPath, "the URL is not valid")
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return problem(commandPath, "the URL must be http or https")
    if (manifest.allowed_domains !== undefined && !hostAllowed(url.hostname, manifest.allowed_domains)) {
      return problem(commandPath, "the URL's host is not within allowed_domains")
    }
    return url
  }

  switch (ns) {
    case "http": {
      if (rest.length < 1 || rest.length > 2) return problem(commandPath, "expected http [METHOD] <url>")
      const method = rest.length === 2 ? rest[0]!.toUpperCase() : "GET"
      if (!(HTTP_METHODS as ReadonlyArray<string>).includes(method)) {
        return problem(commandPath, `unknown HTTP method (expected one of ${HTTP_METHODS.join(", ")})`)
      }
      const url = urlOf(rest[rest.length - 1]!)
      if ("message" in url) return url
      if (step.stdin !== undefined && (method === "GET" || method === "HEAD")) {
        return problem([...at, "stdin"], `stdin (the request body) is not allowed with ${method}`)
      }
      return { type: "Http", args: { method, url: url.href, ...(step.stdin === undefined ? {} : { body: step.stdin }) } }
    }
    case "cli": {
      if (rest.length < 1) return problem(commandPath, "expected cli <cmd> [args…]")
      const operator = rest.find((word) => SHELL_OPERATORS.has(word))
      if (operator !== undefined) {
        return problem(
          commandPath,
          `${JSON.stringify(operator)} is a shell operator, but cli steps run one program without a shell (use sh -c '…' for a pipeline)`
        )
      }
      return noStdin("the program gets no standard input") ?? { type: "CLI", args: { cmd: rest[0]!, args: rest.slice(1) } }
    }
    case "node": {
      const [capability, action, ...args] = rest
      if (capability === undefined) return problem(commandPath, "expected node <capability> [action] [args…]")
      if (!isCapability(capability)) {
        return problem(commandPath, "expected a capability id (namespaced, like svc.playwright)")
      }
      return {
        type: "Node",
        args: {
          capability,
          ...(action === undefined ? {} : { action }),
          ...(args.length === 0 ? {} : { args }),
          ...(step.stdin === undefined ? {} : { stdin: step.stdin })
        }
      }
    }
    case "web": {
      if (rest.length < 1 || rest.length > 2) return problem(commandPath, "expected web [action] <url>")
      const url = urlOf(rest[rest.length - 1]!)
      if ("message" in url) return url
      return noStdin("a web step takes only an action and a URL") ??
        { type: "Web", args: { url: url.href, ...(rest.length === 2 ? { action: rest[0]! } : {}) } }
    }
    case "mcp": {
      if (rest.length < 2 || rest.length > 3) return problem(commandPath, "expected mcp <server> <tool> [json arguments]")
      const [server, tool, inline] = rest as [string, string, string | undefined]
      if (inline !== undefined && step.stdin !== undefined) {
        return problem([...at, "stdin"], "give the mcp arguments either in the command or in stdin, not both")
      }
      const source = inline ?? step.stdin
      if (source === undefined) return { type: "Mcp", args: { server, tool } }
      let parsed: unknown
      try {
        parsed = JSON.parse(source)
      } catch {
        return problem(inline === undefined ? [...at, "stdin"] : commandPath, "the mcp arguments are not valid JSON")
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return problem(inline === undefined ? [...at, "stdin"] : commandPath, "the mcp arguments must be a JSON object")
      }
      return { type: "Mcp", args: { server, tool, arguments: parsed } }
    }
    case "llm": {
      if (rest.length > 0) return problem(commandPath, "expected llm alone (the prompt goes under llm.prompt)")
      if (step.llm === undefined) return problem(at, "an llm step needs llm: {model, prompt}")
      const output = typeof step.output === "string" ? step.output : step.output?.type
      if (output !== "json") return problem(step.output === undefined ? at : [...at, "output"], "an llm step needs output: json")
      const stdin = noStdin("put the text in llm.prompt")
      if (stdin !== undefined) return stdin
      const { model, prompt, max_tool_calls, tools } = step.llm
      return {
        type: "Llm",
        args: {
          model,
          prompt,
          ...(max_tool_calls === undefined ? {} : { max_tool_calls }),
          ...(tools === undefined ? {} : { tools })
        }
      }
    }
  }
}

/** The `args.__playbook` metadata of a step. */
const metadataOf = (manifest: PlaybookManifest, step: PlaybookStep) => ({
  playbook_id: manifest.id,
  version: manifest.version,
  step_id: step.id,
  ...(step.condition === undefined ? {} : { condition: step.condition }),
  ...(step.output === undefined ? {} : { output: step.output }),
  ...(step.rollback_hint === undefined ? {} : { rollback_hint: step.rollback_hint })
})

/** Idempotency key of a playbook step (scoped to a run by the engine, like every key). */
export const idempotencyKeyOf = (playbookId: string, stepId: string): string => `playbook:${playbookId}:${stepId}`

/** The Confirm prompt before a step with `approval: required`. */
export const approvalPrompt = (step: PlaybookStep): string =>
  `Approve playbook step ${step.id}: ${step.name ?? step.command}`

/**
 * Compiles a decoded manifest (see the module documentation), checking what
 * the schema cannot: unique step ids, the namespaces, `allowed_domains`, llm
 * steps. The first problem found is returned.
 */
export const compilePlaybook = (manifest: PlaybookManifest): Result.Result<CompiledPlaybook, Problem> => {
  const seen = new Map<string, number>()
  const steps: Array<WorkflowStep> = []
  const step_ids: Array<string> = []
  for (let index = 0; index < manifest.steps.length; index++) {
    const step = manifest.steps[index]!
    const at = ["steps", index] as const
    const earlier = seen.get(step.id)
    if (earlier !== undefined) {
      return Result.fail(problem([...at, "id"], `duplicate step id (also steps[${earlier}])`))
    }
    seen.set(step.id, index)
    const action = actionOf(manifest, step, at)
    if ("message" in action) return Result.fail(action)
    const __playbook = metadataOf(manifest, step)
    const key = idempotencyKeyOf(manifest.id, step.id)
    const raws: Array<readonly [string, unknown]> = []
    if (step.approval === "required") {
      raws.push([`${step.id}:approval`, {
        type: "Confirm",
        args: { prompt: approvalPrompt(step), __playbook },
        idempotency_key: `${key}:approval`
      }])
    }
    raws.push([step.id, {
      type: action.type,
      args: { ...action.args, __playbook },
      ...(step.postcondition === undefined ? {} : { postcondition: step.postcondition }),
      idempotency_key: key
    }])
    for (const [id, raw] of raws) {
      const decoded = decodeStep(raw)
      if (Result.isFailure(decoded)) {
        return Result.fail(problem(at, `the compiled ${id} step is invalid: ${formatIssue(decoded.failure, "step")}`))
      }
      steps.push(decoded.success)
      step_ids.push(id)
    }
  }
  if (steps.length > MAX_STEPS) {
    return Result.fail(problem(["steps"], `compiles to ${steps.length} workflow steps; a run takes at most ${MAX_STEPS}`))
  }
  return Result.succeed({ steps, step_ids })
}
