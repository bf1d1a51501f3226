"""Schemathesis hooks of scripts/check/api_fuzz.sh: the fuzzed calls run as the built-in
superuser with a token that stays valid, against a project that has data, so generated
requests reach the engine instead of stopping at "no such project".

- Auth: every case carries the superuser's token from POST /rest-auth/login/, except
  the calls that would end it or change the password (logout, password change), which
  run with the token of a user registered for that one call, so the superuser's token and
  password stay valid for the whole run.
- Seed: project 1 with an index of a few documents and one resource of each kind that
  needs no training (lexicon, saved search, regex tagger and group, anonymizer).
- Path parameters: in the fuzzing phase, generated project ids go mostly to the seeded
  project 1 (a quarter to 3, usually missing), other integer ids onto 0..3 (the seeded
  ids and a missing one) and index names onto the seeded index; the coverage
  phase keeps its boundary values. In every phase, deleting project 1 or index 1 is
  turned into deleting id 2, so the seed stays.
"""
import os
import threading

import requests
import schemathesis

BASE = os.environ["TA_FUZZ_BASE"]
INDEX = "fuzz_docs"
_lock = threading.Lock()
_state = {"token": None}
PASSWORD = os.environ["TA_FUZZ_PASSWORD"]


def _login():
    r = requests.post(
        f"{BASE}/rest-auth/login/",
        json={"username": "admin", "password": PASSWORD},
        timeout=30,
    )
    r.raise_for_status()
    return r.json()["key"]


def _seed():
    headers = {"Authorization": f"Token {_login()}"}

    def post(path, body):
        r = requests.post(f"{BASE}{path}", json=body, headers=headers, timeout=60)
        if r.status_code >= 300:
            raise RuntimeError(f"seeding POST {path}: {r.status_code} {r.text}")

    post("/projects/", {"title": "fuzz", "users": [f"{BASE}/users/1/"]})
    texts = ["Politsei pidas varga kinni.", "Mari Tamm läks poodi.", "The thief was caught."]
    post(
        "/projects/1/elastic/documents/",
        {
            "documents": [
                {"_index": INDEX, "_id": str(i + 1), "_source": {"text": t, "label": i % 2}}
                for i, t in enumerate(texts)
            ]
        },
    )
    post("/projects/1/lexicons/", {"description": "fuzz", "phrases": ["varas"]})
    post("/projects/1/searches/", {"description": "fuzz", "query": {"query": {"match_all": {}}}})
    post("/projects/1/regex_taggers/", {"description": "fuzz", "lexicon": ["varas", "politsei"]})
    post("/projects/1/regex_tagger_groups/", {"description": "fuzz", "regex_taggers": [1]})
    post("/projects/1/anonymizers/", {"description": "fuzz"})


_seed()


@schemathesis.auth(refresh_interval=None)
class AdminToken:
    def get(self, case, context):
        with _lock:
            if _state["token"] is None:
                _state["token"] = _login()
            return _state["token"]

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Token {data}"


# Deleting these would take the seeded data away from every later case.
SEED_KEEPERS = {("DELETE", "/projects/{project_pk}/"), ("DELETE", "/index/{id}/")}


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    for name, value in (path_parameters or {}).items():
        if isinstance(value, int) and not isinstance(value, bool):
            if name == "project_pk":
                path_parameters[name] = 3 if value % 4 == 3 else 1
            else:
                path_parameters[name] = value % 4
        elif name == "index" and isinstance(value, str):
            path_parameters[name] = INDEX
    return path_parameters


# Operations that end the caller's token or change the caller's password.
SELF_ENDING = {"/rest-auth/logout/", "/rest-auth/password/change/"}
_throwaways = iter(range(1, 1 << 30))


def _throwaway_token():
    name = f"fuzz-{os.getpid()}-{next(_throwaways)}"
    password = f"{name}-Pw-x"
    r = requests.post(
        f"{BASE}/rest-auth/registration/",
        json={"username": name, "email": f"{name}@example.com", "password1": password, "password2": password},
        timeout=30,
    )
    r.raise_for_status()
    return r.json()["key"]


@schemathesis.hook
def before_call(context, case, **kwargs):
    if (case.method.upper(), case.operation.path) in SEED_KEEPERS:
        for name, value in (case.path_parameters or {}).items():
            if str(value) == "1":
                case.path_parameters[name] = 2
    if case.operation.path in SELF_ENDING and (case.headers or {}).get("Authorization") == f"Token {_state['token']}":
        with _lock:
            token = _throwaway_token()
        case.headers["Authorization"] = f"Token {token}"


@schemathesis.check
def no_server_error_but_missing_language_data(ctx, response, case):
    """Fails any 5xx, as the built-in not_a_server_error does, except the documented 503
    that refuses language processing when the language data is not installed (a clone on
    which scripts/setup.sh has not run)."""
    refusal = response.status_code == 503 and response.text.startswith('{"detail":"language data missing for ')
    if response.status_code >= 500 and not refusal:
        raise AssertionError(f"server error {response.status_code}: {response.text[:300]}")
