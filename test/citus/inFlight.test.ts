/**
 * A revocation, a new multiplier or a lock that commits while a commit waits for the user's row, on
 * Citus, where the commit runs on the worker that holds the user (test/support/postgresInFlight.ts).
 */
import { inFlightSuite } from "../support/postgresInFlight.js";

inFlightSuite();
