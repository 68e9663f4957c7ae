import { describe, test } from "bun:test"
import { postgresStorageLayer } from "../../lib/postgres.js"
import { freshPgLayer, requirePg } from "../support/postgres.js"
import { storageContract } from "./storage.contract.js"

const adminUrl = requirePg()
if (adminUrl === "") {
  describe.skip("Storage contract: postgres (ENCOUNTERD_TEST_PG_URL unset)", () => test("needs PostgreSQL", () => {}))
} else {
  storageContract("postgres", () => freshPgLayer(adminUrl, (url) => postgresStorageLayer(url, { maxConnections: 5 })), {
    describe,
    test
  })
}
