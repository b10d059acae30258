/**
 * Playbook files to workflow steps (issue 13 §1; docs/playbooks.md
 * "Compilation"): one case per command namespace, approval → Confirm,
 * postconditions, idempotency keys and `__playbook` metadata; and every
 * kind of invalid file reported with its message and 1-based line.
 */
import { describe, expect, it } from "vitest"
import { Result } from "effect"
import { hostAllowed, tokenize } from "../../../services/playbooks/compile.ts"
import { parsePlaybook } from "../../../services/playbooks/parse.ts"

const header = (extra = "") => `id: deploy\nname: Deploy\nversion: "1.2"\n${extra}steps:\n`

/** The compiled steps of a playbook whose steps are `steps` (YAML, indented two spaces). */
const compiled = (steps: string, extra = "") => {
  const result = parsePlaybook(header(extra) + steps)
  if (Result.isFailure(result)) throw new Error(`did not load: ${result.failure.message}`)
  return result.success
}

/** The failure of a playbook file. */
const failure = (text: string) => {
  const result = parsePlaybook(text)
  if (Result.isSuccess(result)) throw new Error("loaded, but should not have")
  return result.failure
}

const meta = (step_id: string, more: Record<string, unknown> = {}) => ({ playbook_id: "deploy", version: "1.2", step_id, ...more })

describe("compilation per namespace", () => {
  it("http without a method is a GET; with one, the method (upper-cased) and stdin as the body", () => {
    const { steps, step_ids } = compiled(
      "  - id: fetch\n    command: http https://api.example.com/items?a=1&b=2\n" +
        "  - id: create\n    command: http post 'https://api.example.com/items'\n    stdin: '{\"name\": \"x\"}'\n"
    )
    expect(step_ids).toEqual(["fetch", "create"])
    expect(steps[0]).toEqual({
      type: "Http",
      args: { method: "GET", url: "https://api.example.com/items?a=1&b=2", __playbook: meta("fetch") },
      idempotency_key: "playbook:deploy:fetch",
      max_attempts: 3,
      timeout_ms: 60_000
    })
    expect(steps[1]!.args).toEqual({
      method: "POST",
      url: "https://api.example.com/items",
      body: "{\"name\": \"x\"}",
      __playbook: meta("create")
    })
  })

  it("cli splits like a shell word list (quotes, escapes), without expanding anything", () => {
    const { steps } = compiled(`  - id: greet\n    command: "cli echo \\"a b\\" 'c d' e\\\\ f $HOME *.txt"\n`)
    expect(steps[0]).toMatchObject({
      type: "CLI",
      args: { cmd: "echo", args: ["a b", "c d", "e f", "$HOME", "*.txt"], __playbook: meta("greet") },
      idempotency_key: "playbook:deploy:greet"
    })
  })

  it("node names a capability, an optional action and arguments", () => {
    const { steps } = compiled(
      "  - id: shot\n    command: node svc.playwright screenshot https://example.com full\n" +
        "  - id: ping\n    command: node demo.echo\n    stdin: hello\n"
    )
    expect(steps[0]).toMatchObject({
      type: "Node",
      args: { capability: "svc.playwright", action: "screenshot", args: ["https://example.com", "full"] }
    })
    expect(steps[1]!.args).toEqual({ capability: "demo.echo", stdin: "hello", __playbook: meta("ping") })
  })

  it("web takes a URL and an optional action", () => {
    const { steps } = compiled(
      "  - id: open\n    command: web https://example.com/a\n  - id: read\n    command: web extract https://example.com/b\n"
    )
    expect(steps.map((s) => [s.type, s.args.url, s.args.action])).toEqual([
      ["Web", "https://example.com/a", undefined],
      ["Web", "https://example.com/b", "extract"]
    ])
  })

  it("mcp takes a server, a tool and JSON arguments (inline or as stdin)", () => {
    const { steps } = compiled(
      "  - id: search\n    command: mcp github search_issues '{\"q\":\"bug\",\"n\":3}'\n" +
        "  - id: list\n    command: mcp github list_repos\n    stdin: '{\"org\": \"acme\"}'\n" +
        "  - id: bare\n    command: mcp github whoami\n"
    )
    expect(steps.map((s) => s.type)).toEqual(["Mcp", "Mcp", "Mcp"])
    expect(steps[0]!.args).toMatchObject({ server: "github", tool: "search_issues", arguments: { q: "bug", n: 3 } })
    expect(steps[1]!.args).toMatchObject({ arguments: { org: "acme" } })
    expect(steps[2]!.args).toEqual({ server: "github", tool: "whoami", __playbook: meta("bare") })
  })

  it("llm takes its model, prompt, tool limits and allow list from the step's llm block", () => {
    const { steps } = compiled(
      "  - id: think\n    command: llm\n    output: {type: json, schema: {type: object}}\n" +
        "    llm:\n      model: openai/gpt-4.1\n      prompt: Summarise\n      max_tool_calls: 2\n      tools: {allow: [tool.http.fetch]}\n"
    )
    expect(steps[0]).toMatchObject({
      type: "Llm",
      args: {
        model: "openai/gpt-4.1",
        prompt: "Summarise",
        max_tool_calls: 2,
        tools: { allow: ["tool.http.fetch"] },
        __playbook: meta("think", { output: { type: "json", schema: { type: "object" } } })
      },
      idempotency_key: "playbook:deploy:think"
    })
  })

  it("approval: required adds a Confirm step before the step; metadata, postcondition and keys", () => {
    const { steps, step_ids } = compiled(
      "  - id: ship\n    name: Ship it\n    command: http PUT https://example.com/release\n    approval: required\n" +
        "    condition: steps.build.ok\n    output: json\n    rollback_hint: revert the release\n" +
        "    postcondition: {status: 204}\n"
    )
    expect(step_ids).toEqual(["ship:approval", "ship"])
    expect(steps[0]).toEqual({
      type: "Confirm",
      args: { prompt: "Approve playbook step ship: Ship it", __playbook: meta("ship", { condition: "steps.build.ok", output: "json", rollback_hint: "revert the release" }) },
      idempotency_key: "playbook:deploy:ship:approval",
      max_attempts: 3,
      timeout_ms: 60_000
    })
    expect(steps[1]).toMatchObject({
      type: "Http",
      postcondition: { status: 204 },
      idempotency_key: "playbook:deploy:ship",
      args: { __playbook: { condition: "steps.build.ok", output: "json", rollback_hint: "revert the release" } }
    })
    // Without a name, the prompt shows the command.
    expect(compiled("  - id: go\n    command: cli make deploy\n    approval: required\n").steps[0]!.args.prompt)
      .toBe("Approve playbook step go: cli make deploy")
  })

  it("accepts URLs within allowed_domains (equal host or a subdomain)", () => {
    const { steps } = compiled(
      "  - id: a\n    command: http https://example.com/\n  - id: b\n    command: web https://api.example.com/\n",
      "allowed_domains: [example.com]\n"
    )
    expect(steps).toHaveLength(2)
    expect(hostAllowed("deep.api.example.com", ["*.example.com"])).toBe(true)
    expect(hostAllowed("badexample.com", ["example.com"])).toBe(false)
  })

  it("keeps the manifest (numeric versions read as strings)", () => {
    const result = parsePlaybook("id: p\nname: P\nversion: 3\ndescription: d\nargs: {env: prod}\nconsent_boundary: {spend: none}\nsteps:\n  - id: s\n    command: cli true\n")
    expect(Result.isSuccess(result) && result.success.manifest).toMatchObject({ version: "3", description: "d", args: { env: "prod" } })
  })
})

describe("invalid files", () => {
  it.each([
    ["bad YAML", "id: a\nname: A\n\tversion: 1\n", /^invalid YAML: expected indentation with spaces, not tabs$/, 3],
    ["an unclosed flow sequence", "id: a\nname: [unclosed\nversion: 1\n", /^invalid YAML: expected /, 3],
    ["a duplicate key", "id: a\nname: A\nid: b\n", /^invalid YAML: expected unique keys in each mapping$/, 3],
    ["not a mapping", "- just\n- a list\n", /^playbook: expected a playbook manifest \(a YAML mapping\), got a list$/, 1],
    ["an empty file", "", /^playbook: expected a playbook manifest .*got null/, undefined],
    ["a missing field", "id: a\nname: A\nsteps:\n  - id: s\n    command: cli true\n", /^version: missing required field/, 1],
    ["an unknown field", header() + "  - id: s\n    command: cli true\n    retries: 3\n", /^steps\[0\]: unexpected field$/, 7],
    ["an id with ':'", "id: 'a:b'\nname: A\nversion: 1\nsteps:\n  - id: s\n    command: cli true\n", /^id: expected a playbook id \([^)]*\)$/, 1],
    ["no steps", "id: a\nname: A\nversion: 1\nsteps:\n", /^steps: expected an array of 1 to 128 steps, got null/, 4],
    ["an empty step list", "id: a\nname: A\nversion: 1\nsteps: []\n", /^steps: expected at least one step/, 4],
    ["a bad approval value", header() + "  - id: s\n    command: cli true\n    approval: maybe\n", /^steps\[0\]\.approval: expected "required"/, 7],
    ["an unknown namespace", header() + "  - id: s\n    command: cli true\n  - id: t\n    command: bash -c 'rm -rf /'\n", /^steps\[1\]\.command: unknown command namespace \(expected one of cli, http, web, mcp, node, llm\)$/, 8],
    ["duplicate step ids", header() + "  - id: s\n    command: cli true\n  - id: s\n    command: cli false\n", /^steps\[1\]\.id: duplicate step id \(also steps\[0\]\)$/, 7],
    ["llm without json output", header() + "  - id: s\n    command: llm\n    llm: {model: openai/gpt-4.1, prompt: hi}\n    output: text\n", /^steps\[0\]\.output: an llm step needs output: json/, 8],
    ["llm without output", header() + "  - id: s\n    command: llm\n    llm: {model: openai/gpt-4.1, prompt: hi}\n", /^steps\[0\]: an llm step needs output: json/, 5],
    ["llm without its block", header() + "  - id: s\n    command: llm\n    output: json\n", /^steps\[0\]: an llm step needs llm: \{model, prompt\}/, 5],
    ["an llm block on another step", header() + "  - id: s\n    command: cli true\n    llm: {model: a/b, prompt: p}\n", /^steps\[0\]\.llm: llm is only allowed on llm steps/, 7],
    ["a model without provider", header() + "  - id: s\n    command: llm\n    output: json\n    llm: {model: gpt, prompt: p}\n", /^steps\[0\]\.llm\.model: expected provider\/model/, 8],
    ["a domain outside allowed_domains", header("allowed_domains: [example.com]\n") + "  - id: s\n    command: http https://example.com/\n  - id: t\n    command: http https://evil.com/x\n", /^steps\[1\]\.command: the URL's host is not within allowed_domains$/, 9],
    ["a web URL outside allowed_domains", header("allowed_domains: [example.com]\n") + "  - id: s\n    command: web open https://notexample.com/\n", /^steps\[0\]\.command: the URL's host is not within allowed_domains$/, 7],
    ["an unterminated quote", header() + "  - id: s\n    command: cli echo 'oops\n", /^steps\[0\]\.command: cannot split the command \(Got EOF while in a quoted string\)/, 6],
    ["a shell operator", header() + "  - id: s\n    command: cli cat x | grep y\n", /^steps\[0\]\.command: "\|" is a shell operator/, 6],
    ["an http step with too many words", header() + "  - id: s\n    command: http GET https://a.example/ extra\n", /^steps\[0\]\.command: expected http \[METHOD\] <url>/, 6],
    ["an unknown HTTP method", header() + "  - id: s\n    command: http FETCH https://a.example/\n", /^steps\[0\]\.command: unknown HTTP method \(expected one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\)$/, 6],
    ["a non-http URL", header() + "  - id: s\n    command: http file:///etc/passwd\n", /^steps\[0\]\.command: the URL must be http or https/, 6],
    ["a GET with a body", header() + "  - id: s\n    command: http https://a.example/\n    stdin: body\n", /^steps\[0\]\.stdin: stdin \(the request body\) is not allowed with GET/, 7],
    ["stdin on a cli step", header() + "  - id: s\n    command: cli cat\n    stdin: data\n", /^steps\[0\]\.stdin: stdin is not supported by cli steps/, 7],
    ["a bad node capability", header() + "  - id: s\n    command: node Playwright\n", /^steps\[0\]\.command: expected a capability id \(namespaced, like svc\.playwright\)$/, 6],
    ["mcp arguments that are not a JSON object", header() + "  - id: s\n    command: mcp srv tool '[1]'\n", /^steps\[0\]\.command: the mcp arguments must be a JSON object/, 6],
    ["mcp arguments in both places", header() + "  - id: s\n    command: mcp srv tool '{}'\n    stdin: '{}'\n", /^steps\[0\]\.stdin: give the mcp arguments either/, 7]
  ] as const)("%s", (_name, text, message, line) => {
    const f = failure(text)
    expect(f.message).toMatch(message)
    expect(f.line).toBe(line)
  })
})

describe("load errors never quote the file (issue 20 §5)", () => {
  const SECRET = "5ec7e7a1b2c3d4e5f60718293a4b5c6d7e8f9012"
  it.each([
    ["a master key", `${SECRET}${SECRET.slice(0, 24)}\n`, /^playbook: expected a playbook manifest \(a YAML mapping\), got a string$/, 1],
    ["/etc/passwd", `root:${SECRET}:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n`, /^playbook: expected a playbook manifest \(a YAML mapping\), got a string$/, 1],
    ["an env file", `SVC_ADMIN_TOKEN=${SECRET}\n`, /^playbook: expected a playbook manifest/, 1],
    ["a mapping of secrets", `token: ${SECRET}\n`, /^playbook: unexpected field$/, 1],
    ["a secret as a key", `id: a\nname: A\nversion: 1\nsteps:\n  - id: s\n    command: cli true\n    ${SECRET}: 1\n`, /^steps\[0\]: unexpected field$/, 7],
    ["a secret as a bad id", `id: ${SECRET}!\nname: A\nversion: 1\nsteps:\n  - id: s\n    command: cli true\n`, /^id: expected a playbook id/, 1],
    ["a secret of the wrong type", `id: a\nname: A\nversion: 1\nsteps: ${SECRET}\n`, /^steps: expected an array of 1 to 128 steps, got a string$/, 4],
    ["an unterminated quote", `id: "${SECRET}\n`, /^invalid YAML: expected a closing quote or bracket$/, 2],
    ["an unresolved alias", `id: *${SECRET}\n`, /^invalid YAML: expected at most 100 alias expansions, each naming an anchor defined before it$/, undefined],
    ["an unknown tag (read as text)", `id: !${SECRET} x\n`, /^name: missing required field$/, 1],
    ["an unexpected token", `id: ]${SECRET}\n`, /^invalid YAML: expected a key, a value or a list item here$/, 1],
    ["a bad escape", `id: "\\q${SECRET}"\n`, /^invalid YAML: expected valid escape sequences in a double-quoted string$/, 1],
    ["a reserved first character", `id: @${SECRET}\n`, /^invalid YAML: expected a value not starting with a reserved character/, 1],
    ["an unknown namespace", `id: a\nname: A\nversion: 1\nsteps:\n  - id: s\n    command: ${SECRET} x\n`, /^steps\[0\]\.command: unknown command namespace/, 6],
    ["a host outside allowed_domains", `id: a\nname: A\nversion: 1\nallowed_domains: [${SECRET}.example]\nsteps:\n  - id: s\n    command: http https://${SECRET}.test/\n`, /^steps\[0\]\.command: the URL's host is not within allowed_domains$/, 7]
  ] as const)("%s: says where and what was expected", (_name, text, message, line) => {
    const f = failure(text)
    expect(f.message).toMatch(message)
    expect(f.line).toBe(line)
    expect(f.message).not.toContain(SECRET.slice(0, 8))
    expect(f.message).not.toContain("root")
  })
})

describe("tokenize", () => {
  it("splits POSIX-like words and reports unterminated quotes", () => {
    expect(tokenize(`a "b c" 'd e' f\\ g`)).toEqual(["a", "b c", "d e", "f g"])
    expect(tokenize(`a "b`)).toMatch(/cannot split/)
  })
})
