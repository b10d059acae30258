/**
 * Client device identity (reference §5.2): device_id derivation, proof
 * signing verified by the shared `verifyProof`, and the 0600 identity file.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { deviceIdFromPubkey, proofTranscript, verifyProof } from "../../services/ws-sessions/deviceIdentity.ts"
import {
  DeviceIdentityError,
  generateDeviceIdentity,
  loadOrCreateDeviceIdentity,
  signProof,
  validateDeviceIdentity
} from "../../src/client/identity.ts"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-client-identity-"))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const modeOf = (path: string) => statSync(path).mode & 0o777

describe("generateDeviceIdentity", () => {
  it("derives device_id = dev_ + 52 base32 characters from the DER SPKI pubkey", () => {
    const identity = generateDeviceIdentity()
    expect(identity.device_id).toMatch(/^dev_[a-z2-7]{52}$/)
    expect(identity.device_id).toBe(deviceIdFromPubkey(identity.pubkey))
    expect(identity.pubkey).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(identity.private_key).toMatch(/^[A-Za-z0-9_-]+$/)
    // Ed25519 SPKI DER is 44 bytes; PKCS#8 DER is 48 bytes.
    expect(Buffer.from(identity.pubkey, "base64url").length).toBe(44)
    expect(Buffer.from(identity.private_key, "base64url").length).toBe(48)
    expect(generateDeviceIdentity().device_id).not.toBe(identity.device_id)
  })
})

describe("signProof", () => {
  const fields = { role: "node" as const, connectionId: "3b0c6f3e-3c0a-4c9e-9d1e-0f4f3e0e9a11", challenge: randomBytes(32).toString("base64url") }

  it("signs the shared transcript; verifyProof accepts it", () => {
    const identity = generateDeviceIdentity()
    const proof = signProof(identity, fields)
    const transcript = proofTranscript({ protocolRev: 2, deviceId: identity.device_id, ...fields })
    expect(verifyProof(identity.pubkey, transcript, proof)).toBe(true)
  })

  it("is bound to every transcript field and to the key", () => {
    const identity = generateDeviceIdentity()
    const proof = signProof(identity, fields)
    const base = { protocolRev: 2, deviceId: identity.device_id, ...fields }
    expect(verifyProof(identity.pubkey, proofTranscript({ ...base, role: "client" }), proof)).toBe(false)
    expect(verifyProof(identity.pubkey, proofTranscript({ ...base, protocolRev: 1 }), proof)).toBe(false)
    expect(verifyProof(identity.pubkey, proofTranscript({ ...base, challenge: "x" }), proof)).toBe(false)
    expect(verifyProof(identity.pubkey, proofTranscript({ ...base, connectionId: "other" }), proof)).toBe(false)
    expect(verifyProof(generateDeviceIdentity().pubkey, proofTranscript(base), proof)).toBe(false)
  })

  it("throws DeviceIdentityError for a malformed private key, without key material", () => {
    const identity = { ...generateDeviceIdentity(), private_key: "not-a-key" }
    expect(() => signProof(identity, fields)).toThrow(DeviceIdentityError)
    expect(() => signProof(identity, fields)).toThrow(/private_key is not a base64url DER PKCS#8 key/)
  })
})

describe("loadOrCreateDeviceIdentity", () => {
  it("creates the file (mode 0600, new directory 0700) and reloads the same identity", async () => {
    const dir = join(tempDir(), "nested", "state")
    const path = join(dir, "device.json")
    const created = await loadOrCreateDeviceIdentity(path)
    expect(modeOf(path)).toBe(0o600)
    expect(modeOf(dir)).toBe(0o700)
    const stored = JSON.parse(readFileSync(path, "utf8"))
    expect(stored).toEqual({ v: 1, device_id: created.device_id, pubkey: created.pubkey, private_key: created.private_key })
    const reloaded = await loadOrCreateDeviceIdentity(path)
    expect(reloaded).toEqual(created)
    expect(created.device_id).toBe(deviceIdFromPubkey(created.pubkey))
  })

  it("concurrent first calls agree on one identity", async () => {
    const path = join(tempDir(), "device.json")
    // Many at once: a reader must never see a half-written file (it is linked into place whole).
    const all = await Promise.all(Array.from({ length: 16 }, () => loadOrCreateDeviceIdentity(path)))
    for (const other of all) expect(other).toEqual(all[0])
    expect(JSON.parse(readFileSync(path, "utf8")).device_id).toBe(all[0]!.device_id)
    expect(readdirSync(dirname(path))).toEqual(["device.json"])
  })

  it("tightens a loaded file readable by others to 0600", async () => {
    const path = join(tempDir(), "device.json")
    await loadOrCreateDeviceIdentity(path)
    chmodSync(path, 0o644)
    await loadOrCreateDeviceIdentity(path)
    expect(modeOf(path)).toBe(0o600)
  })

  it.each([
    ["not JSON", "{not json", /device\.json: not valid JSON \(corrupt file\?\)/],
    ["whitespace only", "\n", /not valid JSON/],
    ["an array", "[]", /expected a JSON object/],
    ["another version", JSON.stringify({ v: 2 }), /unsupported format version 2 \(expected 1\)/],
    ["no version", JSON.stringify({ device_id: "dev_x" }), /missing format version v \(expected 1\)/],
    ["a missing field", JSON.stringify({ v: 1, device_id: "dev_x", pubkey: "abc" }), /private_key must be a non-empty string/]
  ])("rejects a corrupt file: %s", async (_name, content, message) => {
    const path = join(tempDir(), "device.json")
    writeFileSync(path, content)
    const error = await loadOrCreateDeviceIdentity(path).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DeviceIdentityError)
    expect((error as DeviceIdentityError).path).toBe(path)
    expect((error as Error).message).toMatch(message)
    // never overwritten
    expect(readFileSync(path, "utf8")).toBe(content)
  })

  it("replaces a zero-length file (what an interrupted write of an older version left) with a new identity", async () => {
    const path = join(tempDir(), "device.json")
    writeFileSync(path, "")
    const created = await loadOrCreateDeviceIdentity(path)
    expect(JSON.parse(readFileSync(path, "utf8")).device_id).toBe(created.device_id)
    expect(modeOf(path)).toBe(0o600)
    expect(await loadOrCreateDeviceIdentity(path)).toEqual(created)
    expect(readdirSync(dirname(path))).toEqual(["device.json"])
  })

  it("rejects a device_id that is not derived from pubkey", async () => {
    const path = join(tempDir(), "device.json")
    const identity = generateDeviceIdentity()
    writeFileSync(path, JSON.stringify({ v: 1, ...identity, device_id: generateDeviceIdentity().device_id }))
    await expect(loadOrCreateDeviceIdentity(path)).rejects.toThrow(/device_id is not derived from pubkey/)
  })

  it("rejects a private key of another pair, without printing key material", async () => {
    const path = join(tempDir(), "device.json")
    const identity = generateDeviceIdentity()
    const other = generateDeviceIdentity()
    writeFileSync(path, JSON.stringify({ v: 1, ...identity, private_key: other.private_key }))
    const error = (await loadOrCreateDeviceIdentity(path).catch((e: unknown) => e)) as Error
    expect(error.message).toMatch(/private_key does not belong to pubkey/)
    expect(error.message).not.toContain(other.private_key)
    expect(error.message).not.toContain(identity.pubkey)
  })

  it("validateDeviceIdentity rejects a non-Ed25519 or malformed pubkey", () => {
    const identity = generateDeviceIdentity()
    expect(() => validateDeviceIdentity({ ...identity, pubkey: "AAAA" })).toThrow(/pubkey is not a base64url DER SPKI key/)
    expect(validateDeviceIdentity({ ...identity, extra: 1 })).toEqual(identity)
  })
})
