/**
 * A revocation, a new multiplier or a lock that commits while a commit waits for the user's row, on
 * one PostgreSQL (test/support/postgresInFlight.ts).
 */
import { inFlightSuite } from "../support/postgresInFlight.js";

inFlightSuite();
