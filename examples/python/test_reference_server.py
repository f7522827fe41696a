r"""The reference server as a test double for a Python test suite (standard library only).

Starts `imagegen-pricing serve` once on a free port with fixtures, a price history and CORS for a
page on http://localhost:5173, the admin token in its environment, and resets it before each test:

    IMAGEGEN_ADMIN_TOKEN=admin-token-for-tests npx imagegen-pricing serve --port 0 \
      --fixtures examples/fixtures.json --catalogs examples/python/price-history.json \
      --cors http://localhost:5173                                                  # what it runs
    python3 -m unittest -v examples/python/test_reference_server.py

The tests: a user made over the admin API, a generation with a key hard-coded in the fixtures and a
refund; a price change crossed with the test clock; an answer lost after its charge and the retry
that replays it; the request journal; a CORS preflight.

IMAGEGEN_SERVE (default "npx imagegen-pricing serve") is the command that starts the server, and
IMAGEGEN_ADMIN_TOKEN (default "admin-token-for-tests") the admin token it is given.
"""

import http.client
import json
import os
import re
import shlex
import subprocess
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures.json")
# The built-in catalog, then the same catalog from 2100-01-01 with beta2 at 4K costing 130 instead of 120.
PRICE_HISTORY = os.path.join(HERE, "price-history.json")
PRICE_CHANGE = "2100-01-01T00:00:00Z"
# The admin token serve reads from its environment: the caller's IMAGEGEN_ADMIN_TOKEN, or this one.
ADMIN_TOKEN = os.environ.get("IMAGEGEN_ADMIN_TOKEN") or "admin-token-for-tests"
ALICE_KEY = "ck_test_alice_0000000000000001"  # hard-coded in fixtures.json; Alice's multiplier is 1.15
PAGE_ORIGIN = "http://localhost:5173"


def call(base, method, path, token=None, body=None, headers=None):
    """One HTTP request; returns (status, headers, parsed JSON body or None when there is none)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    if token is not None:
        request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, answer_headers, text = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, answer_headers, text = error.code, error.headers, error.read()
    return status, answer_headers, json.loads(text) if text else None


def admin(base, method, path, body=None):
    """An admin request that must succeed; returns its JSON body."""
    status, _, answer = call(base, method, path, ADMIN_TOKEN, body)
    assert 200 <= status < 300, (method, path, status, answer)
    return answer


class ReferenceServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        command = shlex.split(os.environ.get("IMAGEGEN_SERVE", "npx imagegen-pricing serve"))
        env = dict(os.environ, IMAGEGEN_ADMIN_TOKEN=ADMIN_TOKEN)
        # In memory, whatever the caller's shell holds: on a DATABASE_URL, reset would empty that database.
        env.pop("DATABASE_URL", None)
        cls.server = subprocess.Popen(
            command
            + ["--port", "0", "--fixtures", FIXTURES, "--catalogs", PRICE_HISTORY, "--cors", PAGE_ORIGIN],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,  # the token stays off the command line, where other users of the machine could read it
        )
        # The server prints "Listening on <base URL>" once it listens (npx may print warnings first).
        for line in cls.server.stdout:
            match = re.search(r"Listening on (https?://\S+)", line)
            if match:
                cls.base = match.group(1).rstrip("/")
                break
        else:
            cls.stop()
            raise RuntimeError("the server exited before printing its URL")

    @classmethod
    def stop(cls):
        """SIGTERM to what was started. Through npx the signal may not reach the server, but the
        server stops by itself once the process that started it is gone."""
        cls.server.terminate()
        cls.server.wait(timeout=30)
        cls.server.stdout.close()

    @classmethod
    def tearDownClass(cls):
        cls.stop()

    def setUp(self):
        # Back to the fixtures, the clock on real time, no fault waiting and an empty journal.
        answer = admin(self.base, "POST", "/admin/reset")
        self.assertEqual(answer["reset"], True)
        self.assertEqual(answer["clock"]["frozen"], False)

    def balance(self, user_id):
        return admin(self.base, "GET", "/admin/users/" + user_id)["balance"]

    def test_admin_user_generation_failure_and_refund(self):
        """S4, S6, S13: a user made over the admin API; a hard-coded key charged, a failed job refunded"""
        status, _, created = call(self.base, "POST", "/admin/users", ADMIN_TOKEN, {"credits": 500})
        self.assertEqual(status, 201)
        self.assertTrue(created["userId"].startswith("usr_"))

        # Alice's key and assets come from the fixtures file, verbatim.
        status, headers, accepted = call(
            self.base,
            "POST",
            "/api/generations",
            ALICE_KEY,
            {
                "prompt": "a lighthouse at dusk",
                "modelId": "beta2",
                "resolution": "4K",
                "imageCount": 2,
                "generationType": "image-to-image",
                "inputAssetIds": ["ast_alice_1"],
                "idempotencyKey": "python-example-1",
            },
        )
        self.assertEqual(status, 202, accepted)
        self.assertTrue(headers["Request-Id"])
        # beta2 at 4K is 120 credits; Alice's multiplier 1.15 makes 138 per image.
        self.assertEqual(accepted["billing"]["totalCreditCost"], 276)
        self.assertEqual(accepted["billing"]["balanceAfterCredits"], 1000 - 276)

        job_id = accepted["batch"]["results"][0]["job"]["id"]
        status, _, failed = call(self.base, "POST", "/admin/jobs/" + job_id + "/fail", ADMIN_TOKEN)
        self.assertEqual(status, 200)
        self.assertEqual(failed["refundedCredits"], 138)

        status, _, ledger = call(self.base, "GET", "/admin/users/usr_alice/ledger", ADMIN_TOKEN)
        self.assertEqual(status, 200)
        kinds = [(entry["kind"], entry["credits"]) for entry in ledger["entries"]]
        self.assertEqual(kinds, [("grant", 1000), ("debit", 276), ("refund", 138)])

        status, _, credits = call(self.base, "GET", "/api/query/credits", ALICE_KEY)
        self.assertEqual(status, 200)
        self.assertEqual(credits["creditBalance"], 1000 - 276 + 138)

    def test_keys_and_admin_token_do_not_cross(self):
        """S1: an API key is refused on the admin API, the admin token on the service"""
        status, _, body = call(self.base, "GET", "/admin/users/usr_alice", ALICE_KEY)
        self.assertEqual(status, 401)
        self.assertNotIn(ALICE_KEY, json.dumps(body))
        status, _, body = call(self.base, "GET", "/api/ping", ADMIN_TOKEN)
        self.assertEqual(status, 401)

    def test_price_change_crossed_with_the_test_clock(self):
        """S17, P8: the clock is set a second before a price change, quoted, moved past it, quoted and charged"""
        clock = admin(self.base, "POST", "/admin/clock", {"now": "2099-12-31T23:59:59Z"})
        self.assertEqual(clock, {"now": "2099-12-31T23:59:59.000Z", "frozen": True})
        spec = {"kind": "image", "modelId": "beta2", "resolution": "4K", "quality": "low"}

        status, _, before = call(self.base, "POST", "/api/pricing/quote", ALICE_KEY, spec)
        self.assertEqual(status, 200, before)
        # 120 x 1.15 = 138 now; 130 x 1.15 = 149.5, rounded half up to 150, from the change on.
        self.assertEqual(before["credits"], 138)
        self.assertEqual(before["catalogVersion"], "2026-11-20")
        self.assertEqual(
            before["nextChange"],
            {"version": "2100-01-01", "effectiveAt": "2100-01-01T00:00:00.000Z", "credits": 150},
        )

        clock = admin(self.base, "POST", "/admin/clock", {"advanceMs": 1000})
        self.assertEqual(clock, {"now": "2100-01-01T00:00:00.000Z", "frozen": True})
        status, _, after = call(self.base, "POST", "/api/pricing/quote", ALICE_KEY, spec)
        self.assertEqual(status, 200, after)
        self.assertEqual(after["credits"], 150)
        self.assertEqual(after["catalogVersion"], "2100-01-01")
        self.assertNotIn("nextChange", after)  # no later catalog is known

        status, _, accepted = call(
            self.base, "POST", "/api/generations", ALICE_KEY, {"prompt": "a lighthouse", "modelId": "beta2", "resolution": "4K"}
        )
        self.assertEqual(status, 202, accepted)
        self.assertEqual(accepted["billing"], {"totalCreditCost": 150, "balanceAfterCredits": 1000 - 150})
        self.assertEqual(self.balance("usr_alice"), 1000 - 150)

    def test_lost_answer_then_keyed_retry_is_charged_once(self):
        """S17, S5: a lose_answer fault closes the connection after the charge; the keyed retry replays it, charged once"""
        _, _, ping = call(self.base, "GET", "/api/ping", ALICE_KEY)
        alice_key_id = ping["apiKeyId"]  # the key's id, never the key, scopes the fault to this test's client
        fault = admin(
            self.base,
            "POST",
            "/admin/faults",
            {"kind": "lose_answer", "method": "POST", "path": "/api/generations", "apiKeyId": alice_key_id},
        )
        self.assertTrue(fault["faultId"].startswith("flt_"))
        waiting = admin(self.base, "GET", "/admin/faults")["faults"]
        self.assertEqual([(f["kind"], f["timesLeft"]) for f in waiting], [("lose_answer", 1)])

        idempotency_key = str(uuid.uuid4())  # a UUID is shown as sent in the journal; other keys are masked
        body = json.dumps({"prompt": "a secret lighthouse prompt", "modelId": "beta2", "resolution": "4K"})
        headers = {
            "Authorization": "Bearer " + ALICE_KEY,
            "Content-Type": "application/json",
            "Idempotency-Key": idempotency_key,
        }
        url = urllib.parse.urlsplit(self.base)

        def send():
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
            connection.request("POST", "/api/generations", body, headers)
            return connection

        # The server carries the request out (charged, committed), then closes the connection unanswered.
        connection = send()
        with self.assertRaises(ConnectionResetError):  # http.client.RemoteDisconnected is one
            connection.getresponse()
        connection.close()
        self.assertEqual(self.balance("usr_alice"), 1000 - 138)
        self.assertEqual(admin(self.base, "GET", "/admin/faults")["faults"], [])  # spent

        # The retry with the same key gets the first answer, replayed, and is not charged again.
        connection = send()
        response = connection.getresponse()
        replay = json.loads(response.read())
        connection.close()
        self.assertEqual(response.status, 202, replay)
        self.assertEqual(response.getheader("Idempotent-Replayed"), "true")
        self.assertEqual(replay["billing"], {"totalCreditCost": 138, "balanceAfterCredits": 1000 - 138})
        self.assertEqual(self.balance("usr_alice"), 1000 - 138)
        ledger = admin(self.base, "GET", "/admin/users/usr_alice/ledger")["entries"]
        self.assertEqual([(e["kind"], e["credits"]) for e in ledger], [("grant", 1000), ("debit", 138)])

        # The journal, newest first: the replay, the lost answer (status 0), the ping; since the reset only.
        status, _, journal = call(self.base, "GET", "/admin/requests?limit=10", ADMIN_TOKEN)
        self.assertEqual(status, 200)
        seen = [
            (r["method"], r["path"], r["status"], r.get("apiKeyId"), r.get("idempotencyKey"))
            for r in journal["requests"]
        ]
        self.assertEqual(
            seen,
            [
                ("POST", "/api/generations", 202, alice_key_id, idempotency_key),
                ("POST", "/api/generations", 0, alice_key_id, idempotency_key),
                ("GET", "/api/ping", 200, alice_key_id, None),
            ],
        )
        self.assertTrue(all(r["requestId"] and r["at"] for r in journal["requests"]))
        text = json.dumps(journal)
        for secret in (ALICE_KEY, ADMIN_TOKEN, "secret lighthouse"):
            self.assertNotIn(secret, text)

    def test_cors_preflight_for_a_page_on_another_origin(self):
        """CORS: a preflight from the --cors origin is answered 204 with the allow headers"""
        status, headers, body = call(
            self.base,
            "OPTIONS",
            "/api/generations",
            headers={
                "Origin": PAGE_ORIGIN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
            },
        )
        self.assertEqual(status, 204)
        self.assertIsNone(body)
        self.assertEqual(headers["Access-Control-Allow-Origin"], PAGE_ORIGIN)
        self.assertIn("POST", headers["Access-Control-Allow-Methods"])
        allowed = [h.strip().lower() for h in headers["Access-Control-Allow-Headers"].split(",")]
        for header in ("authorization", "content-type", "idempotency-key"):
            self.assertIn(header, allowed)

        # The page can read the answer and the headers a client needs, Request-Id among them.
        status, headers, _ = call(self.base, "GET", "/api/ping", ALICE_KEY, headers={"Origin": PAGE_ORIGIN})
        self.assertEqual(status, 200)
        self.assertEqual(headers["Access-Control-Allow-Origin"], PAGE_ORIGIN)
        self.assertIn("Request-Id", headers["Access-Control-Expose-Headers"])


if __name__ == "__main__":
    unittest.main()
