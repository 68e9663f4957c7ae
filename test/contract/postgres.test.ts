import { describe, test } from "bun:test"
import { postgresStorageLayer } from "../../lib/postgres.js"
import { describePg, freshPgLayer } from "../support/postgres.js"
import { storageContract } from "./storage.contract.js"

describePg("PostgreSQL", (adminUrl) =>
  storageContract("postgres", () => freshPgLayer(adminUrl, (url) => postgresStorageLayer(url, { maxConnections: 5 })), {
    describe,
    test
  })
)
