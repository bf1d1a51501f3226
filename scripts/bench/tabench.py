"""Helpers shared by the benchmark drivers (scripts/bench/*/bench.py): failing with a message,
running a command for its output, and a ta binary in local mode on its own data directory."""
import json
import os
import subprocess
import sys


def die(msg):
    sys.exit(f"bench: {msg}")


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        die(f"{' '.join(map(str, cmd))} failed ({res.returncode}):\n{res.stderr[-2000:]}")
    return res.stdout


class Ta:
    """A ta binary with its own data and config directories (local mode, never a server)."""

    def __init__(self, binary, work):
        self.binary = binary
        self.env = dict(os.environ, TA_DATA_DIR=os.path.join(work, "data"),
                        TA_CONFIG_DIR=os.path.join(work, "config"), TA_ADMIN_PASSWORD="bench")
        self.env.pop("TA_SERVER", None)
        self.project = json.loads(self.cli("project", "create", "--title", "bench", "--user", "admin"))["id"]

    def cli(self, *args, stdin=None):
        return run([self.binary, "--json", *map(str, args)], env=self.env, stdin=stdin)
