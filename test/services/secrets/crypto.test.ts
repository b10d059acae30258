/** The db provider's primitives: AES-256-GCM round trip, authentication, key ids, key files. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { keyId, open, seal } from "../../../layers/secrets/crypto.ts"
import { generateKeyFile, parseKey, readKeyFile } from "../../../layers/secrets/masterKey.ts"
import { keyPath } from "./support.ts"

describe("AES-256-GCM sealing", () => {
  const key = randomBytes(32)
  it("round-trips and never stores the plaintext", () => {
    const sealed = seal(key, "hunter2-é✓", "svc-secret:sec_1:1")
    expect(open(key, sealed, "svc-secret:sec_1:1")).toBe("hunter2-é✓")
    expect(JSON.stringify(sealed)).not.toContain("hunter2")
    expect(Buffer.from(sealed.iv, "base64")).toHaveLength(12)
    expect(Buffer.from(sealed.tag, "base64")).toHaveLength(16)
    expect(sealed.key_id).toBe(keyId(key))
  })
  it("uses a fresh IV each time", () => {
    expect(seal(key, "x", "a").iv).not.toBe(seal(key, "x", "a").iv)
  })
  it("refuses another key, other associated data and a tampered ciphertext", () => {
    const sealed = seal(key, "value", "svc-secret:sec_1:1")
    expect(open(randomBytes(32), sealed, "svc-secret:sec_1:1")).toBeUndefined()
    expect(open(key, sealed, "svc-secret:sec_2:1")).toBeUndefined()
    const bytes = Buffer.from(sealed.ciphertext, "base64")
    bytes[0] ^= 1
    expect(open(key, { ...sealed, ciphertext: bytes.toString("base64") }, "svc-secret:sec_1:1")).toBeUndefined()
  })
  it("key id: first 16 hex of the SHA-256", () => {
    expect(keyId(Buffer.alloc(32))).toBe("66687aadf862bd77")
  })
})

describe("master key file", () => {
  it.effect("is generated with mode 0600 as 64 hex characters, and read back", () =>
    Effect.gen(function*() {
      const path = keyPath()
      expect(yield* readKeyFile(path)).toBe("missing")
      const key = yield* generateKeyFile(path)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(readFileSync(path, "utf8")).toMatch(/^[0-9a-f]{64}\n$/)
      expect(Buffer.from((yield* readKeyFile(path)) as Uint8Array)).toEqual(Buffer.from(key))
      // A second generation (e.g. a concurrent start) reads the existing key instead of replacing it.
      expect(Buffer.from(yield* generateKeyFile(path))).toEqual(Buffer.from(key))
    }))
  it("accepts hex, base64 and raw 32 bytes; refuses anything else", () => {
    const key = randomBytes(32)
    expect(Buffer.from(parseKey(Buffer.from(key.toString("hex")))!)).toEqual(key)
    expect(Buffer.from(parseKey(Buffer.from(`${key.toString("base64")}\n`))!)).toEqual(key)
    expect(Buffer.from(parseKey(key)!)).toEqual(key)
    expect(parseKey(Buffer.from("short"))).toBeUndefined()
  })
  it.effect("a zero-length key file (left by an interrupted write of an older version) reads as empty and is replaced", () =>
    Effect.gen(function*() {
      const path = keyPath()
      writeFileSync(path, "")
      expect(yield* readKeyFile(path)).toBe("empty")
      const key = yield* generateKeyFile(path)
      expect(readFileSync(path, "utf8")).toBe(`${Buffer.from(key).toString("hex")}\n`)
      expect(statSync(path).mode & 0o777).toBe(0o600)
    }))
  it.effect("an invalid key file is a clear error naming the file", () =>
    Effect.gen(function*() {
      const path = keyPath()
      writeFileSync(path, "not a key", { mode: 0o600 })
      const error = yield* Effect.flip(readKeyFile(path))
      expect(error._tag).toBe("SecretsKeyUnreadable")
      expect(error.message).toContain(path)
    }))
})
