"""Sends over-limit bodies with `requests` and `aiohttp` (what the official runpod clients use).

Usage: over_limit.py <base_url> <api_key> <endpoint_id> <tries>
Prints one JSON line: {"<client> <target>": [status or error text, ...], ...}.
"""
import asyncio
import json
import sys

import urllib.error
import urllib.request

import aiohttp
import requests

base, key, endpoint, tries = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
MB = 1024 * 1024
headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}


def blob(size):
    return json.dumps({"input": {"blob": "x" * size}}).encode()


targets = {
    "/run 11 MB": (f"{base}/v2/{endpoint}/run", blob(11 * MB), headers),
    "/runsync 40 MB": (f"{base}/v2/{endpoint}/runsync", blob(40 * MB), headers),
    "/run 11 MB no key": (f"{base}/v2/{endpoint}/run", blob(11 * MB), {"Content-Type": "application/json"}),
    "/graphql 2 MB": (f"{base}/graphql?api_key={key}", json.dumps({"query": "{ myself { id } }", "pad": "x" * (2 * MB)}).encode(), headers),
    "/v1/templates 2 MB": (f"{base}/v1/templates", json.dumps({"name": "x" * (2 * MB)}).encode(), headers),
}
out = {}

for name, (url, body, h) in targets.items():
    got = []
    for _ in range(tries):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=h, method="POST"), timeout=30) as r:
                got.append(r.status)
        except urllib.error.HTTPError as e:
            got.append(e.code)
        except Exception as e:  # noqa: BLE001
            got.append(f"{type(e).__name__}: {e}"[:200])
    out[f"urllib {name}"] = got

with requests.Session() as session:
    for name, (url, body, h) in targets.items():
        got = []
        for _ in range(tries):
            try:
                got.append(session.post(url, data=body, headers=h, timeout=30).status_code)
            except Exception as e:  # noqa: BLE001 - the point is to report it
                got.append(f"{type(e).__name__}: {e}"[:200])
        out[f"requests {name}"] = got


async def with_aiohttp():
    async with aiohttp.ClientSession() as session:
        for name, (url, body, h) in targets.items():
            got = []
            for _ in range(tries):
                try:
                    async with session.post(url, data=body, headers=h, timeout=aiohttp.ClientTimeout(total=30)) as r:
                        await r.read()
                        got.append(r.status)
                except Exception as e:  # noqa: BLE001
                    got.append(f"{type(e).__name__}: {e}"[:200])
            out[f"aiohttp {name}"] = got


asyncio.run(with_aiohttp())
print(json.dumps(out))
