"""The HealCore fuzzer's Python side: CPython's own parser and healrt's re-check on every program.

argv: a file with one program per line (a JSON string), and the path of healrt's healcheck.py.
Prints a header {"python": version}, then one JSON object per program, in order:
{"parses": false, "error": ...} or {"parses": true, "healcheck": "accepted"|"rejected", "message": ...}.
"""

import ast
import importlib.util
import json
import sys
import warnings


def load_healcheck(path):
    # loaded by path: importing the healrt package would start far more than the re-check
    spec = importlib.util.spec_from_file_location("healcheck_under_fuzz", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verdict(healcheck, code):
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as error:
        where = f" (line {error.lineno}, column {error.offset})" if isinstance(error, SyntaxError) else ""
        return {"parses": False, "error": f"{getattr(error, 'msg', error)}{where}"}
    try:
        healcheck.check_heal(tree)
    except healcheck.HealRejected as rejected:
        return {"parses": True, "healcheck": "rejected", "message": str(rejected)}
    return {"parses": True, "healcheck": "accepted", "message": ""}


def main():
    warnings.simplefilter("ignore")  # invalid escapes such as '\d' are deprecated, and still valid Python
    healcheck = load_healcheck(sys.argv[2])
    print(json.dumps({"python": sys.version.split()[0]}))
    with open(sys.argv[1], encoding="utf-8") as programs:
        for line in programs:
            print(json.dumps(verdict(healcheck, json.loads(line))))


main()
