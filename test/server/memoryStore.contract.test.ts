import { createMemoryStore } from "../../src/server/memoryStore.js";
import { storeContract } from "../support/storeContract.js";

storeContract("in-memory store", async () => createMemoryStore());
