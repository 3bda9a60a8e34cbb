"""The official runpod (PyPI) GraphQL tooling against the platform's control plane.

Usage: ctl.py <scenario> <json args>; prints one JSON summary line. RUNPOD_API_BASE_URL points
the client at the platform and INTEROP_API_KEY carries the key (sent as Authorization: Bearer).
"""
import json
import os
import sys

import runpod
from runpod.api.graphql import run_graphql_query

runpod.api_key = os.environ["INTEROP_API_KEY"]


def lifecycle(args):
    tpl = runpod.create_template(
        name=args["name"], image_name="local/py:1", docker_start_cmd=args["cmd"],
        env={"GREETING": "hello world"}, is_serverless=True,
    )
    ep = runpod.create_endpoint(name=args["name"] + "-ep", template_id=tpl["id"], gpu_ids="AMPERE_24",
                                workers_min=0, workers_max=1, flashboot=True, idle_timeout=3)
    listed = [e for e in runpod.get_endpoints() if e["id"] == ep["id"]]
    tpl2 = runpod.create_template(name=args["name"] + "-2", image_name="local/py:2",
                                  docker_start_cmd=args["cmd"], is_serverless=True)
    switched = runpod.update_endpoint_template(ep["id"], tpl2["id"])
    refused = None
    try:
        run_graphql_query(f'mutation {{ deleteEndpoint(id: "{ep["id"]}") }}')
    except Exception as err:  # the client raises on any `errors` key
        refused = f"{type(err).__name__}: {err}"
    run_graphql_query(f'mutation {{ saveEndpoint(input: {{ id: "{ep["id"]}", workersMax: 0 }}) {{ id }} }}')
    deleted = run_graphql_query(f'mutation {{ deleteEndpoint(id: "{ep["id"]}") }}')
    return {"template": tpl, "endpoint": ep, "listed": listed, "switched": switched, "refused": refused, "deleted": deleted}


def bad_key(_args):
    runpod.api_key = "wrong"
    try:
        runpod.get_endpoints()
    except Exception as err:
        return {"error": type(err).__name__, "message": str(err)}
    return {"error": None}


if __name__ == "__main__":
    scenario, raw = sys.argv[1], sys.argv[2]
    print(json.dumps({"scenario": scenario, **globals()[scenario](json.loads(raw))}))
