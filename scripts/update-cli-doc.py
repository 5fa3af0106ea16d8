"""Rewrites the `--help` blocks of docs/cli.md from the built program, so the reference cannot
drift from the code: every "## `dpmcmc COMMAND`" section's first fenced block becomes the output
of `dpmcmc COMMAND --help` (program path shown as dpmcmc).

    python3 scripts/update-cli-doc.py [BUILD_DIR] [--check]

--check: change nothing; exit 1 (naming the commands) when the file is out of date (a test).
"""
import re
import subprocess
import sys

args = [a for a in sys.argv[1:] if a != "--check"]
check = "--check" in sys.argv[1:]
build = args[0] if args else "build"
root = args[1] if len(args) > 1 else "."
path = f"{root}/docs/cli.md"
text = open(path, encoding="utf-8").read()


def help_of(command):
    out = subprocess.run([f"{build}/dpmcmc", command, "--help"], capture_output=True, text=True,
                         check=True).stdout
    return out.replace(f"{build}/dpmcmc", "dpmcmc").rstrip("\n")


def replace(match):
    return f"{match.group(1)}```\n{help_of(match.group(2))}\n```"


new = re.sub(r"(## `dpmcmc (\w+)`\n(?:(?!```)[^\n]*\n)*?)```\n.*?\n```", replace, text,
             flags=re.S)
if check:
    if new != text:
        sys.exit(f"{path} is out of date with `dpmcmc COMMAND --help`: run "
                 "python3 scripts/update-cli-doc.py")
    sys.exit(0)
open(path, "w", encoding="utf-8").write(new)
