/** PKCE S256 (RFC 7636 appendix B) and the random state and verifier. */
import { describe, expect, it } from "vitest"
import { escapeHtml, failurePage, successPage } from "../../../services/provider-oauth/html.ts"
import { challengeS256, makeVerifier, randomToken } from "../../../services/provider-oauth/pkce.ts"

describe("pkce", () => {
  it("computes the S256 challenge of RFC 7636 appendix B", () => {
    expect(challengeS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  })

  it("makes 43-character base64url verifiers and states that do not repeat", () => {
    const verifiers = new Set(Array.from({ length: 100 }, makeVerifier))
    expect(verifiers.size).toBe(100)
    for (const v of verifiers) expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })
})

describe("callback pages", () => {
  it("escape everything they echo", () => {
    expect(escapeHtml(`<script>alert("x")</script>&'`)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;")
    const page = failurePage({ provider: "p<b>", error: "access_denied", description: "<img src=x onerror=alert(1)>" })
    expect(page).not.toContain("<img")
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;")
    expect(successPage({ provider: "p", agentId: "<a>", authProfileId: "ap_1" })).toContain("&lt;a&gt;")
  })
})
