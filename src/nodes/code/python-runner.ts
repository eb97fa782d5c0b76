/**
 * The script `python3 -I -c` runs for a Python code node (the original's runner, reworked).
 *
 * argv: [1] RLIMIT_AS in bytes (0 = none), [2] RLIMIT_CPU in seconds (0 = none).
 * stdin: JSON `{"code": "...", "input": <JSON>}`.
 * fd 3: one JSON envelope, `{"ok": true, "result": ...}` or
 * `{"ok": false, "type": "ValueError", "error": "...", "line": n?, "column": n?}`.
 *
 * The result goes to fd 3, not stdout, so the user's `print` cannot forge or corrupt it.
 * Limits are set before the user's code is compiled. `allow_nan=False` because JSON has no
 * NaN and the host parses with JSON.parse.
 */
export const PYTHON_RUNNER = `
import json, os, sys
try:
    import resource
except ImportError:
    resource = None

def _limit(kind, value):
    if resource is None or value <= 0:
        return
    try:
        resource.setrlimit(kind, (value, value))
    except (ValueError, OSError):
        pass

_out = os.fdopen(3, "w", encoding="utf-8")

def _send(envelope):
    try:
        text = json.dumps(envelope, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError, OverflowError) as e:
        text = json.dumps({"ok": False, "type": "TypeError", "error": "the result is not JSON: %s" % e})
    except MemoryError:
        text = '{"ok": false, "type": "MemoryError", "error": "out of memory"}'
    _out.write(text)
    _out.flush()

def _fail(e, **extra):
    envelope = {"ok": False, "type": type(e).__name__, "error": str(e)}
    envelope.update(extra)
    _send(envelope)

if resource is not None:
    _limit(resource.RLIMIT_AS, int(sys.argv[1]))
    _limit(resource.RLIMIT_CPU, int(sys.argv[2]))
_request = json.loads(sys.stdin.read())
_namespace = {"__name__": "__plaita_code__"}
try:
    exec(compile(_request["code"], "<code>", "exec"), _namespace)
except SyntaxError as e:
    _fail(e, error=str(e.msg), line=e.lineno, column=e.offset)
    sys.exit(0)
except BaseException as e:
    _fail(e)
    sys.exit(0)
_run = _namespace.get("run")
if not callable(_run):
    _send({"ok": False, "type": "NameError", "error": "the code defines no function run(input)"})
    sys.exit(0)
try:
    _send({"ok": True, "result": _run(_request["input"])})
except MemoryError:
    _send({"ok": False, "type": "MemoryError", "error": "out of memory"})
except BaseException as e:
    _fail(e)
`;
