import { describe, test } from "bun:test"
import { MemoryStorage } from "../../lib/adapters/memory/storage.js"
import { storageContract } from "./storage.contract.js"

storageContract("memory", () => MemoryStorage.layer, { describe, test })
