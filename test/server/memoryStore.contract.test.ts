import { createMemoryStore } from "../../src/store/memory.js";
import { storeContract } from "../support/storeContract.js";

storeContract("in-memory store", async () => createMemoryStore());
