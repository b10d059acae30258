/**
 * Long replies in parts (services/messenger/splitText.ts): within the limit one part; over it, parts of at most the
 * limit in code points, cut at a line break, else a space, else at the limit, never inside a surrogate pair.
 */
import { describe, expect, it } from "@effect/vitest"
import { splitText } from "../../../services/messenger/splitText.ts"

describe("splitText", () => {
  it("keeps a text within the limit whole", () => {
    expect(splitText("short", 10)).toEqual(["short"])
    expect(splitText("x".repeat(10), 10)).toEqual(["x".repeat(10)])
  })

  it("cuts at the last line break, else the last space, of the window's second half", () => {
    expect(splitText("aaaaaa\nbbbb cc", 10)).toEqual(["aaaaaa", "bbbb cc"])
    expect(splitText("aaaaaa bbbb cc", 10)).toEqual(["aaaaaa", "bbbb cc"])
    // A break too early in the window is not used: the cut falls at the limit.
    expect(splitText("a\nbbbbbbbbbbbbbbbbbb", 10)).toEqual(["a\nbbbbbbbb", "bbbbbbbbbb"])
  })

  it("counts code points and never cuts a surrogate pair", () => {
    const emoji = "😀".repeat(15)
    const parts = splitText(emoji, 10)
    expect(parts).toEqual(["😀".repeat(10), "😀".repeat(5)])
    expect(parts.join("")).toBe(emoji)
  })
})
