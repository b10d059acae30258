/**
 * The operator console's routes on a real gateway (issue 23 §1; gateway-api.md
 * "Public routes" `/ui`, `/ui/*`; src/app/routes/ui.ts): a temporary UI
 * directory (index.html, hashed assets, top-level files, a hidden file) next
 * to a file that must never be reachable; the shell for `/ui` and every
 * client route, the files with their content types and cache policies, 404
 * `not_found` for missing files and every traversal attempt (sent raw, not
 * normalized by a client), the security headers on every answer, HEAD, the
 * start log, and the 404s without a build.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { UI_CONTENT_SECURITY_POLICY } from "../../src/app/routes/ui.ts"
import { uiTarget } from "../../src/app/routes/uiRequest.ts"
import { startGateway, type StructuredLog, type TestGateway } from "../support/gateway.ts"

const INDEX = "<!doctype html>\n<html lang=\"en\"><head><script type=\"module\" src=\"/ui/assets/app-abc123.js\"></script></head><body></body></html>\n"
const SCRIPT = "console.log(\"console\")\n"
const STYLE = "body{margin:0}\n"
const ICON = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"
const OUTSIDE = "outside-the-ui-directory"

/** A build as `vite build` writes it, in `<tmp>/ui`, with `<tmp>/secret.txt` beside it. */
const makeBuild = (): string => {
  const parent = mkdtempSync(join(tmpdir(), "svc-ui-"))
  const dir = join(parent, "ui")
  mkdirSync(join(dir, "assets"), { recursive: true })
  mkdirSync(join(dir, ".vite"))
  writeFileSync(join(dir, "index.html"), INDEX)
  writeFileSync(join(dir, "assets", "app-abc123.js"), SCRIPT)
  writeFileSync(join(dir, "assets", "index-9dd2.css"), STYLE)
  writeFileSync(join(dir, "assets", "font-1a2b.woff2"), new Uint8Array([0x77, 0x4f, 0x46, 0x32]))
  writeFileSync(join(dir, "favicon.svg"), ICON)
  writeFileSync(join(dir, "robots.txt"), "User-agent: *\n")
  writeFileSync(join(dir, ".vite", "manifest.json"), "{}")
  writeFileSync(join(parent, "secret.txt"), OUTSIDE)
  writeFileSync(join(parent, "secret.js"), OUTSIDE)
  return dir
}

/** A GET (or `method`) with the request target sent exactly as given (fetch would normalize `..`). */
const raw = (gw: TestGateway, target: string, method = "GET") =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; body: string }>((resolve, reject) => {
    const url = new URL(gw.url)
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: target, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

const expectSecurityHeaders = (headers: Headers | Record<string, string | Array<string> | undefined>) => {
  const get = (name: string) => headers instanceof Headers ? headers.get(name) : headers[name]
  expect(get("content-security-policy")).toBe(UI_CONTENT_SECURITY_POLICY)
  expect(get("x-content-type-options")).toBe("nosniff")
  expect(get("referrer-policy")).toBe("no-referrer")
  expect(get("x-frame-options")).toBe("DENY")
}

describe("GET /ui with a build", () => {
  let gw: TestGateway
  const logs: Array<StructuredLog> = []
  let dir: string
  beforeAll(async () => {
    dir = makeBuild()
    gw = await startGateway({ uiDir: dir, logLevel: "Info" }, undefined, { logs })
  })
  afterAll(() => gw.close())

  it("has the strict CSP the issue asks for", () => {
    expect(UI_CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
  })

  it.each(["/ui", "/ui/", "/ui/approvals", "/ui/runs/abc", "/ui/runs/abc/", "/ui/approvals?status=pending", "/ui/index.html"])(
    "%s answers the shell, no-store, without a token",
    async (path) => {
      const res = await gw.fetch(path)
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(res.headers.get("cache-control")).toBe("no-store")
      expectSecurityHeaders(res.headers)
      expect(await res.text()).toBe(INDEX)
    }
  )

  it.each([
    ["/ui/assets/app-abc123.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", SCRIPT],
    ["/ui/assets/app-abc123.js?v=1", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", SCRIPT],
    ["/ui/assets/index-9dd2.css", "text/css; charset=utf-8", "public, max-age=31536000, immutable", STYLE],
    ["/ui/assets/font-1a2b.woff2", "font/woff2", "public, max-age=31536000, immutable", "wOF2"],
    ["/ui/favicon.svg", "image/svg+xml", "no-cache", ICON],
    ["/ui/robots.txt", "text/plain; charset=utf-8", "no-cache", "User-agent: *\n"]
  ])("%s answers the file as %s, %s", async (path, contentType, cacheControl, body) => {
    const res = await gw.fetch(path)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe(contentType)
    expect(res.headers.get("cache-control")).toBe(cacheControl)
    expectSecurityHeaders(res.headers)
    expect(await res.text()).toBe(body)
  })

  it.each(["/ui/assets/missing-0000.js", "/ui/missing.png", "/ui/assets/APP-ABC123.JS", "/ui/.vite/manifest.json"])(
    "%s (no such file, or hidden) is 404 text not_found",
    async (path) => {
      const res = await gw.fetch(path)
      expect(res.status).toBe(404)
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/)
      expectSecurityHeaders(res.headers)
      expect(await res.text()).toBe("not_found")
    }
  )

  it.each([
    "/ui/../secret.txt",
    "/ui/assets/../../secret.js",
    "/ui/%2e%2e/secret.txt",
    "/ui/%2E%2E/secret.js",
    "/ui/assets/%2e%2e/%2e%2e/secret.txt",
    "/ui/..%2fsecret.txt",
    "/ui/..%2Fsecret.js",
    "/ui/..%5csecret.txt",
    "/ui/..\\secret.txt",
    "/ui/assets\\..\\..\\secret.js",
    "/ui/%00secret.txt",
    "/ui/assets/app-abc123.js%00.txt",
    "/ui//secret.txt",
    "/ui/./index.html",
    "/ui/%2e/index.html",
    "/ui/..",
    "/ui/%2e%2e",
    "/ui/%2e%2e/",
    "/ui/assets/..%2f..%2f"
  ])("%s never leaves the directory: 404 not_found", async (target) => {
    const res = await raw(gw, target)
    expect(res.status).toBe(404)
    expect(res.body).toBe("not_found")
    expect(res.body).not.toContain(OUTSIDE)
    expectSecurityHeaders(res.headers)
  })

  it("a target with malformed percent-encoding matches no route (the router's own answer, as for every route)", async () => {
    // The route matcher cannot decode it, so it is an undeclared path: 401 without a token, never a file.
    const res = await raw(gw, "/ui/%zz.js")
    expect(res.status).toBe(401)
    expect(res.body).not.toContain(OUTSIDE)
  })

  it("answers HEAD like GET, without a body", async () => {
    for (const [path, type] of [["/ui", "text/html; charset=utf-8"], ["/ui/assets/app-abc123.js", "text/javascript; charset=utf-8"]] as const) {
      const res = await raw(gw, path, "HEAD")
      expect(res.status).toBe(200)
      expect(res.headers["content-type"]).toBe(type)
      expectSecurityHeaders(res.headers)
      expect(res.body).toBe("")
    }
  })

  it("logs once at start where the build was found (at Info)", () => {
    const found = logs.filter((l) => String(l.message).includes("operator console assets"))
    expect(found).toHaveLength(1)
    expect(found[0]!.level).toBe("INFO")
    expect(String(found[0]!.message)).toContain("found")
    expect(found[0]!.annotations).toMatchObject({ ui_dir: dir, files: 6 })
  })
})

describe("GET /ui without a build", () => {
  const cases = [
    ["no directory", () => join(mkdtempSync(join(tmpdir(), "svc-ui-")), "missing")],
    ["a directory without index.html", () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-ui-"))
      mkdirSync(join(dir, "assets"))
      writeFileSync(join(dir, "assets", "app-abc123.js"), SCRIPT)
      return dir
    }]
  ] as const
  for (const [name, makeDir] of cases) {
    describe(name, () => {
      let gw: TestGateway
      const logs: Array<StructuredLog> = []
      beforeAll(async () => {
        gw = await startGateway({ uiDir: makeDir(), logLevel: "Info" }, undefined, { logs })
      })
      afterAll(() => gw.close())

      it.each(["/ui", "/ui/", "/ui/approvals", "/ui/runs/abc"])("%s is 404 text operator_ui_assets_unavailable", async (path) => {
        const res = await gw.fetch(path)
        expect(res.status).toBe(404)
        expect(res.headers.get("content-type")).toMatch(/^text\/plain/)
        expectSecurityHeaders(res.headers)
        expect(await res.text()).toBe("operator_ui_assets_unavailable")
      })

      it.each(["/ui/assets/app-abc123.js", "/ui/favicon.svg", "/ui/%2e%2e/secret.txt"])("%s is 404 text not_found", async (path) => {
        const res = await raw(gw, path)
        expect(res.status).toBe(404)
        expectSecurityHeaders(res.headers)
        expect(res.body).toBe("not_found")
      })

      it("logs once at start that the build is unavailable (at Info), with the directory", () => {
        const found = logs.filter((l) => String(l.message).includes("operator console assets"))
        expect(found).toHaveLength(1)
        expect(found[0]!.level).toBe("INFO")
        expect(String(found[0]!.message)).toContain("unavailable")
        expect(found[0]!.annotations.ui_dir).toEqual(expect.any(String))
        expect(found[0]!.annotations.reason).toEqual(expect.any(String))
      })
    })
  }
})

describe("uiTarget", () => {
  it.each([
    ["/ui", { _tag: "Shell" }],
    ["/ui/", { _tag: "Shell" }],
    ["/ui/approvals", { _tag: "Shell" }],
    ["/ui/runs/r-1/steps", { _tag: "Shell" }],
    ["/ui/assets/index-3fA9c.js", { _tag: "File", key: "assets/index-3fA9c.js" }],
    ["/ui/assets/a%20b.css?x=1", { _tag: "File", key: "assets/a b.css" }],
    ["/ui/favicon.svg", { _tag: "File", key: "favicon.svg" }],
    ["/ui/..", { _tag: "Invalid" }],
    ["/ui/a/%2e%2e/b.js", { _tag: "Invalid" }],
    ["/ui/a%2fb.js", { _tag: "Invalid" }],
    ["/ui/a\\b.js", { _tag: "Invalid" }],
    ["/ui/a%00", { _tag: "Invalid" }],
    ["/ui/a//b", { _tag: "Invalid" }],
    ["/ui/.env", { _tag: "Invalid" }],
    ["/ui/%E0%A4%A", { _tag: "Invalid" }],
    ["/uix", { _tag: "Invalid" }]
  ])("%s → %j", (url, target) => {
    expect(uiTarget(url)).toEqual(target)
  })
})
