"""The reference server as a test double for a Python test suite (standard library only).

Starts `imagegen-pricing serve` with fixtures and an admin token on a free port, then:
creates a user over the admin API, sends a generation with a key hard-coded in the fixtures,
fails one of its jobs and finds the refund in the ledger.

    npx imagegen-pricing serve --fixtures fixtures.json --admin-token admin-token-for-tests --port 0   # what it runs
    python3 -m unittest examples/python/test_reference_server.py

IMAGEGEN_SERVE (default "npx imagegen-pricing serve") is the command that starts the server.
"""

import json
import os
import re
import shlex
import subprocess
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures.json")
ADMIN_TOKEN = "admin-token-for-tests"
ALICE_KEY = "ck_test_alice_0000000000000001"  # hard-coded in fixtures.json


def call(base, method, path, token, body=None, headers=None):
    """One HTTP request; returns (status, headers, parsed JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read())


class ReferenceServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        command = shlex.split(os.environ.get("IMAGEGEN_SERVE", "npx imagegen-pricing serve"))
        cls.server = subprocess.Popen(
            command + ["--fixtures", FIXTURES, "--admin-token", ADMIN_TOKEN, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
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

    def test_admin_user_generation_failure_and_refund(self):
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
        status, _, body = call(self.base, "GET", "/admin/users/usr_alice", ALICE_KEY)
        self.assertEqual(status, 401)
        self.assertNotIn(ALICE_KEY, json.dumps(body))
        status, _, body = call(self.base, "GET", "/api/ping", ADMIN_TOKEN)
        self.assertEqual(status, 401)


if __name__ == "__main__":
    unittest.main()
