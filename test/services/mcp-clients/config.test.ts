/**
 * `mcp.yml` (docs/mcp.md "mcp.yml"): the two server kinds, strict decoding with the line of each problem, a broken
 * entry skipped while the others load, a file that is not YAML, and an empty file.
 */
import { describe, expect, it } from "vitest"
import { parseMcpConfig } from "../../../services/mcp-clients/config.ts"

const parse = (...lines: ReadonlyArray<string>) => parseMcpConfig("mcp.yml", [...lines, ""].join("\n"))

describe("mcp.yml", () => {
  it("reads stdio and HTTP servers in file order", () => {
    expect(parse(
      "servers:",
      "  files:",
      "    command: mcp-files",
      "    args: [--root, /srv]",
      "    env: {LOG_LEVEL: warn}",
      "    cwd: /srv",
      "  tickets:",
      "    url: https://mcp.example.com/mcp",
      "    headers: {authorization: Bearer x}"
    )).toEqual({
      servers: [
        { name: "files", spec: { command: "mcp-files", args: ["--root", "/srv"], env: { LOG_LEVEL: "warn" }, cwd: "/srv" } },
        { name: "tickets", spec: { url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } } }
      ],
      errors: []
    })
  })

  it("reports each broken entry with its line and keeps the others", () => {
    const config = parse(
      "servers:",
      "  good:",
      "    command: ok",
      "  both:",
      "    command: x",
      "    url: http://h/mcp",
      "  typo:",
      "    command: x",
      "    arg: [a]",
      "  badargs:",
      "    command: x",
      "    args: [1, 2]",
      "  ftp:",
      "    url: ftp://h/mcp",
      "  bad.name:",
      "    command: x",
      "  list: [1]"
    )
    expect(config.servers.map((s) => s.name)).toEqual(["good"])
    expect(config.errors).toEqual([
      { file: "mcp.yml", line: 4, message: "servers.both: a server has either command (stdio) or url (HTTP), not both or neither" },
      { file: "mcp.yml", line: 9, message: "servers.typo.arg: unexpected field" },
      { file: "mcp.yml", line: 12, message: expect.stringMatching(/^servers\.badargs\.args\[0\]: expected a string/) },
      { file: "mcp.yml", line: 14, message: expect.stringMatching(/^servers\.ftp\.url: expected an http\(s\) URL/) },
      { file: "mcp.yml", line: 15, message: expect.stringMatching(/^servers\.bad\.name: not a server name/) },
      { file: "mcp.yml", line: 17, message: "servers.list: expected a mapping with command or url" }
    ])
  })

  it("reports a top level that is not `servers:` and a file that is not YAML, with no server", () => {
    expect(parse("server:", "  x: {command: y}")).toEqual({
      servers: [],
      errors: [{ file: "mcp.yml", line: 1, message: "servers: missing required field" }]
    })
    expect(parse("- a").errors).toEqual([{ file: "mcp.yml", line: 1, message: "mcp.yml: expected an object" }])
    const broken = parse("servers:", "  a: {command: [}")
    expect(broken.servers).toEqual([])
    expect(broken.errors).toEqual([{ file: "mcp.yml", line: 2, message: expect.stringMatching(/^invalid YAML: expected /) }])
  })

  it("reads an empty file as no server", () => {
    expect(parse("")).toEqual({ servers: [], errors: [] })
    expect(parse("servers: {}")).toEqual({ servers: [], errors: [] })
  })
})
