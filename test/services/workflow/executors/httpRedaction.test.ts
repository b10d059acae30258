/**
 * What of an Http step and its answer is stored (issue 20 §6): credential
 * names, URL userinfo and credential query values, request headers,
 * response headers; the `Idempotency-Key` value; the secret handles the gate
 * judges.
 */
import { describe, expect, it } from "@effect/vitest"
import { idempotencyKeyOf } from "../../../../services/playbooks/compile.ts"
import {
  idempotencyKeyHeader,
  parseHttpArgs,
  PER_DEFINITION_KEY_PREFIX,
  secretHandlesOf
} from "../../../../services/workflow/executors/httpArgs.ts"
import {
  isCredentialName,
  keptResponseHeaders,
  policyUrl,
  redactStep,
  redactUrl
} from "../../../../services/workflow/executors/httpRedaction.ts"
import { toolCallOf } from "../../../../services/workflow/executors/toolCall.ts"

describe("isCredentialName", () => {
  it.each([
    "authorization", "Proxy-Authorization", "cookie", "Set-Cookie", "x-api-key", "X-API-KEY", "api_key", "apikey", "key",
    "token", "access_token", "refresh-token", "x-auth-token", "private-token", "client_secret", "password", "pwd",
    "signature", "sig", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "AWSAccessKeyId", "session_id",
    "ocp-apim-subscription-key", "x-functions-key", "jwt"
  ])("%s is a credential", (name) => {
    expect(isCredentialName(name)).toBe(true)
  })

  it.each(["content-type", "accept", "idempotency-key", "x-request-id", "page", "q", "sort_key", "keyword", "monkey", "design"])(
    "%s is not",
    (name) => {
      expect(isCredentialName(name)).toBe(false)
    }
  )
})

describe("redactUrl", () => {
  it.each([
    ["https://api.example.com/v1?page=2", "https://api.example.com/v1?page=2"],
    ["https://user:pw@api.example.com/v1", "https://[redacted]@api.example.com/v1"],
    ["https://x-access-token:ghp_abc@github.com/o/r.git", "https://[redacted]@github.com/o/r.git"],
    ["https://api.example.com/v1?token=abc&page=2&API_KEY=k#frag", "https://api.example.com/v1?token=[redacted]&page=2&API_KEY=[redacted]#frag"],
    ["https://s3.example/b/o?X-Amz-Signature=s&X-Amz-Credential=c&x=1", "https://s3.example/b/o?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&x=1"],
    // Spellings the URL parser accepts: no slashes, backslashes.
    ["http:user:pw@host.example/p", "http://[redacted]@host.example/p"],
    ["http:\\\\user:pw@host.example/p", "http://[redacted]@host.example/p"],
    // Relative (a Location header) and malformed URLs, by their spelling.
    ["/callback?code=1&access_token=t", "/callback?code=1&access_token=[redacted]"],
    ["//user:pw@host.example/", "//[redacted]@host.example/"],
    ["http://user:pw@exa mple.com/?token=t", "http://[redacted]@exa mple.com/?token=[redacted]"]
  ])("%s → %s", (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted)
    expect(redactUrl(redacted)).toBe(redacted)
  })

  it("policyUrl drops the userinfo, so a step and its redacted record are matched alike", () => {
    const raw = "https://user:pw@api.example.com/v1?token=abc"
    expect(policyUrl(raw)).toBe("https://api.example.com/v1?token=[redacted]")
    expect(policyUrl(redactUrl(raw))).toBe(policyUrl(raw))
  })
})

describe("redactStep", () => {
  it("redacts an Http step's credential headers, userinfo and query; keeps secret references and everything else", () => {
    const step = {
      type: "Http" as const,
      args: {
        method: "POST",
        url: "https://u:p@api.example.com/x?key=k&n=1",
        headers: { Authorization: "Bearer t", "X-Trace": "1", "x-api-key": { secret_handle: "sec_1" } },
        body: { password: "in the body is the caller's business" }
      },
      idempotency_key: "i"
    }
    expect(redactStep(step)).toEqual({
      ...step,
      args: {
        ...step.args,
        url: "https://[redacted]@api.example.com/x?key=[redacted]&n=1",
        headers: { Authorization: "[redacted]", "X-Trace": "1", "x-api-key": { secret_handle: "sec_1" } }
      }
    })
  })

  it("returns the same object when nothing is redacted, and any other kind untouched", () => {
    const clean = { type: "Http" as const, args: { url: "https://api.example.com/", headers: { accept: "text/plain" } } }
    expect(redactStep(clean)).toBe(clean)
    const cli = { type: "CLI" as const, args: { argv: ["curl", "-H", "authorization: x"], headers: { authorization: "x" } } }
    expect(redactStep(cli)).toBe(cli)
  })

  it("a redacted record is refused by the executor's argument check, naming secret_handle", () => {
    const redacted = redactStep({ type: "Http" as const, args: { url: "https://api.example.com/", headers: { cookie: "c" } } })
    expect(parseHttpArgs(redacted.args)).toContain("args.headers.cookie is the redaction marker [redacted]")
  })
})

describe("keptResponseHeaders", () => {
  it("keeps the allow-list only, lower case; location redacted", () => {
    expect(keptResponseHeaders({
      "Content-Type": "application/json",
      ETag: "\"1\"",
      "Retry-After": "5",
      "X-Request-Id": "r1",
      "Set-Cookie": "s=1",
      "WWW-Authenticate": "Bearer",
      "X-Internal": "i",
      Location: "https://idp.example/cb?token=t"
    })).toEqual({
      "content-type": "application/json",
      etag: "\"1\"",
      "retry-after": "5",
      "x-request-id": "r1",
      location: "https://idp.example/cb?token=[redacted]"
    })
  })
})

describe("Idempotency-Key and secret handles", () => {
  it("idempotencyKeyHeader is the key as given (percent-encoded where a header cannot carry it); a playbook key gets its run", () => {
    expect(idempotencyKeyHeader("run-1", "order-42")).toBe("order-42")
    expect(idempotencyKeyHeader("run-1", "a\"b\\c")).toBe("a\"b\\c")
    expect(idempotencyKeyHeader("run-1", "é 100%\n")).toBe("%C3%A9 100%25%0A")
    expect(idempotencyKeyHeader("run-1", "playbook:deploy:build")).toBe("playbook:deploy:build:run-1")
    expect(idempotencyKeyOf("deploy", "build").startsWith(PER_DEFINITION_KEY_PREFIX)).toBe(true)
  })

  it("the gate sees the handles an Http step's headers reference", () => {
    const args = { url: "https://api.example.com/?token=t", headers: { a: { secret_handle: "sec_2" }, b: { secret_handle: "sec_1" }, c: "x" } }
    expect(secretHandlesOf(args)).toEqual(["sec_1", "sec_2"])
    expect(toolCallOf({ type: "Http", args })).toEqual({
      tool_id: "tool.http.fetch",
      tool_match_target: "https://api.example.com/?token=[redacted]",
      url: "https://api.example.com/?token=[redacted]",
      secret_handles: ["sec_1", "sec_2"]
    })
  })
})
