import { defineConfig } from "vitest/config"

// vitest 5's reporter calls Map.groupBy (Node >= 21); this machine runs Node 20.
if (typeof (Map as unknown as { groupBy?: unknown }).groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", {
    value: <K, V>(items: Iterable<V>, key: (item: V, index: number) => K): Map<K, Array<V>> => {
      const out = new Map<K, Array<V>>()
      let i = 0
      for (const item of items) {
        const k = key(item, i++)
        const list = out.get(k)
        if (list) list.push(item)
        else out.set(k, [item])
      }
      return out
    }
  })
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks"
  }
})
