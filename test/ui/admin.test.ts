/**
 * The console's admin pages in Chromium (issue 23 §2.5 first half, §3):
 * Policy (the effective bundle; an override created, shown live, revoked with
 * a reason), Secrets and Auth profiles (store a secret, the value never shown
 * back and its field cleared; a profile that uses it, edited, disabled and
 * enabled; rotate the secret and see the profile follow to the new handle;
 * revoke it and see the profile disabled), Device tokens (issued and shown
 * once with a working Copy button, revoked by pasting it; a device token with
 * operator.admin is told these routes need the admin token;
 * test/ui/access.test.ts checks that one without operator.admin sees no admin
 * page). Results are checked through the HTTP API; axe on each page state.
 */
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

const VALUES = ["sk-ui-admin-FIRST-0001", "sk-ui-admin-SECOND-0002"]

describe.skipIf(!browserAvailable)("console: policy, secrets, device tokens, auth profiles", () => {
  let ui: Console
  let context: BrowserContext
  let page: Page
  const auth = (token = ui.gw.adminToken) => ({ authorization: `Bearer ${token}` })
  const get = async (path: string) => readJson(await ui.gw.fetch(path, { headers: auth() }))
  const nav = (name: string) => page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name, exact: true })
  const status = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text })
  /** Everything the page shows or keeps in storage: a secret value must be in none of it. */
  const everything = async (p: Page = page) =>
    (await p.content()) + (await p.evaluate<string>("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })"))

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    ;({ context, page } = await ui.open())
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.gw.url })
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
  })
  afterAll(async () => {
    await ui?.close()
  })

  it("shows the effective bundle, creates an override, shows one created elsewhere live and revokes it with a reason", async () => {
    await nav("Policy").click()
    await page.getByRole("heading", { name: "Policy", level: 1 }).waitFor()
    const bundle = await get("/policy/bundle")
    await page.getByText(bundle.effective.sha256).waitFor()
    await expect(page.getByRole("region", { name: "Effective bundle" }).textContent()).resolves.toContain("built-in (default)")
    await page.getByText("No active overrides.").waitFor()
    await screenshot(page, "policy")
    await expectAccessible(page)

    await page.getByLabel("Tool id").fill("tool.exec")
    await page.getByLabel("Pattern").fill("git status*")
    await page.getByRole("button", { name: "Create override" }).click()
    await status("Override tool.exec git status* created for agent default.").waitFor()
    const created = (await get("/policy/overrides?status=active")).overrides
    expect(created).toEqual([expect.objectContaining({ agent_id: "default", tool_id: "tool.exec", pattern: "git status*", status: "active" })])
    await page.getByRole("button", { name: "Revoke override tool.exec git status*" }).waitFor()

    // Created through the API while the page is open: the policy_override.created event shows it.
    const other = await readJson(await postJson(ui.gw, "/policy/overrides", { agent_id: "default", tool_id: "tool.http.fetch", pattern: "https://example.com/*" }, ui.gw.adminToken))
    await page.getByRole("button", { name: "Revoke override tool.http.fetch https://example.com/*" }).waitFor()
    await screenshot(page, "policy-overrides")
    await expectAccessible(page)

    await page.getByRole("button", { name: "Revoke override tool.exec git status*" }).click()
    await page.getByRole("heading", { name: /Revoke override tool\.exec/ }).waitFor()
    await page.getByLabel("Reason (optional)").fill("no longer needed")
    await expectAccessible(page)
    await page.getByRole("button", { name: "Revoke override", exact: true }).click()
    await status("Override tool.exec git status* revoked.").waitFor()
    await page.getByRole("button", { name: "Revoke override tool.exec git status*" }).waitFor({ state: "detached" })
    const revoked = (await get("/policy/overrides?status=revoked")).overrides
    expect(revoked).toEqual([expect.objectContaining({ tool_id: "tool.exec", status: "revoked", revoked_reason: "no longer needed" })])

    await page.getByLabel("Status").selectOption("revoked")
    await page.getByRole("row").filter({ hasText: "no longer needed" }).waitFor()
    await page.getByLabel("Status").selectOption("active")
    await page.getByRole("button", { name: "Revoke override tool.http.fetch https://example.com/*" }).waitFor()
    expect(other.override.status).toBe("active")
  })

  it("stores a secret write-only, rotates it with the auth profile following, and revokes it", async () => {
    await nav("Secrets").click()
    await page.getByRole("heading", { name: "Secrets", level: 1 }).waitFor()
    await page.getByText("No secrets stored for agent default.").waitFor()
    await expectAccessible(page)
    await page.getByLabel("Scope").fill("provider:openai")
    await page.getByLabel("Value", { exact: true }).fill(VALUES[0]!)
    await page.getByRole("button", { name: "Store secret" }).click()
    await status(/Stored secret provider:openai as handle sec_/).waitFor()
    await expect(page.getByLabel("Value", { exact: true }).inputValue()).resolves.toBe("")
    const [first] = (await get("/secrets")).handles
    expect(first).toMatchObject({ scope: "provider:openai" })
    await page.getByRole("row").filter({ hasText: first.handle_id }).waitFor()
    expect(await everything()).not.toContain(VALUES[0])

    // An auth profile that uses it, created on the auth profiles page.
    await nav("Auth profiles").click()
    await page.getByRole("heading", { name: "Auth profiles", level: 1 }).waitFor()
    await page.getByText("No matching auth profiles for agent default.").waitFor()
    await page.getByLabel("Provider", { exact: true }).fill("openai")
    await page.getByLabel("Secret for api_key").selectOption(first.handle_id)
    await page.getByLabel("Labels (optional)").fill("team=ops")
    await page.getByRole("button", { name: "Create profile" }).click()
    await status(/Auth profile ap_.* \(openai, api_key\) created\./).waitFor()
    const [profile] = (await get("/auth/profiles?provider=openai")).profiles
    expect(profile).toMatchObject({ status: "active", secret_handles: { api_key: first.handle_id }, labels: { team: "ops" } })
    const profileRow = page.getByRole("table", { name: "Auth profiles of agent default" }).getByRole("row").filter({ hasText: profile.auth_profile_id })
    await expect(profileRow.textContent()).resolves.toContain(`api_key: ${first.handle_id} (secret provider:openai`)
    await screenshot(page, "auth-profiles")
    await expectAccessible(page)

    // Edit its labels, disable it with a reason, enable it again.
    await profileRow.getByRole("button", { name: `Edit profile ${profile.auth_profile_id}` }).click()
    await expect(page.getByLabel("Labels", { exact: true }).inputValue()).resolves.toBe("team=ops")
    await page.getByLabel("Labels", { exact: true }).fill("team=platform")
    await expectAccessible(page)
    await page.getByRole("button", { name: "Save profile" }).click()
    await status(`Auth profile ${profile.auth_profile_id} updated.`).waitFor()
    expect((await get("/auth/profiles?provider=openai")).profiles[0]).toMatchObject({ labels: { team: "platform" }, secret_handles: { api_key: first.handle_id } })
    await profileRow.getByRole("button", { name: `Disable profile ${profile.auth_profile_id}` }).click()
    await page.getByLabel("Reason (optional)").fill("key leaked")
    await page.getByRole("button", { name: "Disable profile", exact: true }).click()
    await status(`Auth profile ${profile.auth_profile_id} disabled.`).waitFor()
    // The status line can show before the table re-renders: wait for the row itself.
    await profileRow.getByRole("cell", { name: "disabled: key leaked" }).waitFor()
    expect((await get("/auth/profiles?provider=openai")).profiles[0]).toMatchObject({ status: "disabled", disabled_reason: "key leaked" })
    await profileRow.getByRole("button", { name: `Enable profile ${profile.auth_profile_id}` }).click()
    await status(`Auth profile ${profile.auth_profile_id} enabled.`).waitFor()
    expect((await get("/auth/profiles?provider=openai")).profiles[0]).toMatchObject({ status: "active" })

    // Rotate on the secrets page: the row of the handle names the profile, the rotation moves it to the new handle.
    await nav("Secrets").click()
    const firstRow = page.getByRole("row").filter({ hasText: first.handle_id })
    await expect(firstRow.getByRole("listitem").textContent()).resolves.toContain("openai api_key (active)")
    await screenshot(page, "secrets")
    await page.getByRole("button", { name: "Rotate secret provider:openai" }).click()
    await expect(page.getByRole("region", { name: /Rotate secret provider:openai/ }).textContent()).resolves.toContain(`openai (${profile.auth_profile_id})`)
    await page.getByLabel("New value").fill(VALUES[1]!)
    await expectAccessible(page)
    await page.getByRole("button", { name: "Rotate secret", exact: true }).click()
    await status(/Secret provider:openai rotated: new handle sec_\w+ replaces/).waitFor()
    const [second] = (await get("/secrets")).handles
    expect(second.handle_id).not.toBe(first.handle_id)
    expect((await get("/auth/profiles?provider=openai")).profiles[0]).toMatchObject({ status: "active", secret_handles: { api_key: second.handle_id } })
    await firstRow.waitFor({ state: "detached" })
    const secondRow = page.getByRole("row").filter({ hasText: second.handle_id })
    await expect(secondRow.getByRole("listitem").textContent()).resolves.toContain("openai api_key (active)")
    expect(await everything()).not.toContain(VALUES[1])

    await nav("Auth profiles").click()
    await expect(profileRow.textContent()).resolves.toContain(`api_key: ${second.handle_id} (secret provider:openai`)

    // A session pin to the profile.
    await page.getByLabel("Session id").fill("thread-42")
    await page.getByLabel("Profile to pin").selectOption(profile.auth_profile_id)
    await page.getByRole("button", { name: "Pin session" }).click()
    await status(`Session thread-42 pinned to ${profile.auth_profile_id} for openai.`).waitFor()
    expect((await get("/auth/pins?session_id=thread-42")).pins).toEqual([expect.objectContaining({ provider: "openai", auth_profile_id: profile.auth_profile_id })])
    await page.getByRole("button", { name: "Clear pin of thread-42 for openai" }).waitFor()
    await screenshot(page, "auth-profiles-pinned")
    await expectAccessible(page)

    // Revoke the secret: the profile using it is disabled.
    await nav("Secrets").click()
    await page.getByRole("button", { name: "Revoke secret provider:openai" }).click()
    await expect(page.getByRole("region", { name: /Revoke secret provider:openai/ }).textContent()).resolves.toContain("are disabled")
    await page.getByRole("button", { name: "Revoke secret", exact: true }).click()
    await status(`Secret provider:openai revoked (handle ${second.handle_id}).`).waitFor()
    await page.getByText("No secrets stored for agent default.").waitFor()
    expect((await get("/secrets")).handles).toEqual([])
    expect((await get("/auth/profiles?provider=openai")).profiles[0]).toMatchObject({ status: "disabled", disabled_reason: `secret ${second.handle_id} revoked` })

    await nav("Auth profiles").click()
    await expect(profileRow.textContent()).resolves.toContain("not an active secret of this agent")
    await expect(profileRow.textContent()).resolves.toContain(`disabled: secret ${second.handle_id} revoked`)
    await profileRow.getByRole("button", { name: `Enable profile ${profile.auth_profile_id}` }).click()
    await expect(page.getByRole("alert").textContent()).resolves.toContain("400")
    await expectAccessible(page)
    expect(await everything()).not.toMatch(/sk-ui-admin/)
  })

  it("issues a device token shown once with a working Copy button, and revokes it by pasting it", async () => {
    await nav("Device tokens").click()
    await page.getByRole("heading", { name: "Device tokens", level: 1 }).waitFor()
    await expectAccessible(page)
    await page.getByLabel("Device id").fill("ui-ops-laptop")
    await page.getByLabel("operator.approvals").check()
    await page.getByLabel("Expires after").fill("2")
    await page.getByLabel("Unit").selectOption("hours")
    await page.getByRole("button", { name: "Issue token" }).click()
    await page.getByRole("heading", { name: "Token issued for ui-ops-laptop" }).waitFor()
    const token = (await page.locator("code.token").textContent()) ?? ""
    expect(token).toMatch(/^svc-device\.v1\./)
    await expect(page.locator(".secret-once").textContent()).resolves.toContain("shown only this once")
    await screenshot(page, "tokens-issued")
    await expectAccessible(page)
    await page.getByRole("button", { name: "Copy token" }).click()
    await status("Copied to the clipboard.").waitFor()
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(token)

    // The token works with the scopes chosen, then is revoked by pasting it.
    expect((await ui.gw.fetch("/approvals", { headers: auth(token) })).status).toBe(200)
    expect((await ui.gw.fetch("/policy/bundle", { headers: auth(token) })).status).toBe(403)
    await page.getByRole("button", { name: "Done, hide it" }).click()
    await page.getByRole("heading", { name: "Token issued for ui-ops-laptop" }).waitFor({ state: "detached" })
    expect(await page.content()).not.toContain(token)
    await page.getByLabel("Device token to revoke").fill(token)
    await page.getByRole("button", { name: "Revoke token" }).click()
    await status(/Device token .+ revoked\./).waitFor()
    await expect(page.getByLabel("Device token to revoke").inputValue()).resolves.toBe("")
    expect((await ui.gw.fetch("/approvals", { headers: auth(token) })).status).toBe(401)
    await screenshot(page, "tokens")
  })

  it("tells a device token with operator.admin that device tokens need the admin token", async () => {
    const issue = async (scopes: Array<string>) =>
      (await readJson(await postJson(ui.gw, "/auth/device-tokens/issue", { device_id: "ui-admin-device", role: "client", scopes, ttl_seconds: 600 }, ui.gw.adminToken))).token as string

    const admin = await ui.open()
    await signIn(admin.page, await issue(["operator.read", "operator.admin"]))
    await admin.page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Device tokens" }).click()
    await admin.page.getByText("needs the admin token itself").waitFor()
    expect(await admin.page.getByRole("button", { name: "Issue token" }).count()).toBe(0)
    await screenshot(admin.page, "tokens-device-admin")
    await expectAccessible(admin.page)
    await admin.page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Policy" }).click()
    await admin.page.getByRole("button", { name: "Create override" }).waitFor()
    await admin.context.close()
  })
})
